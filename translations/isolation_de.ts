<?xml version="1.0" encoding="utf-8"?>
<!DOCTYPE TS>
<TS version="2.1" language="de_DE">
<context>
    <name>QObject</name>
    <message>
        <source>Isolation</source>
        <translation>Isolation</translation>
    </message>
    <message>
        <source>Cannot start the tray: %1</source>
        <translation>Das Tray-Programm kann nicht starten: %1</translation>
    </message>
    <message>
        <source>Cannot start the engine: %1</source>
        <translation>Die Engine kann nicht starten: %1</translation>
    </message>
</context>
<context>
    <name>isolation::ActivityModel</name>
    <message>
        <source>Time</source>
        <translation>Zeit</translation>
    </message>
    <message>
        <source>Kind</source>
        <translation>Art</translation>
    </message>
    <message>
        <source>Event</source>
        <translation>Ereignis</translation>
    </message>
    <message>
        <source>Connection</source>
        <translation>Verbindung</translation>
    </message>
    <message>
        <source>Pairing</source>
        <translation>Kopplung</translation>
    </message>
    <message>
        <source>Runtime</source>
        <translation>Laufzeitumgebung</translation>
    </message>
    <message>
        <source>Workspace</source>
        <translation>Arbeitsbereich</translation>
    </message>
    <message>
        <source>Session</source>
        <translation>Sitzung</translation>
    </message>
</context>
<context>
    <name>isolation::ActivityPage</name>
    <message>
        <source>Kind of event</source>
        <translation>Art des Ereignisses</translation>
    </message>
    <message>
        <source>All events</source>
        <translation>Alle Ereignisse</translation>
    </message>
    <message>
        <source>Search events</source>
        <translation>Ereignisse durchsuchen</translation>
    </message>
    <message>
        <source>&amp;Show:</source>
        <translation>&amp;Zeigen:</translation>
    </message>
</context>
<context>
    <name>isolation::Engine</name>
    <message>
        <source>Not running</source>
        <translation>Läuft nicht</translation>
    </message>
    <message>
        <source>Starting: reading this computer&apos;s credentials</source>
        <translation>Start: Zugangsdaten dieses Computers werden gelesen</translation>
    </message>
    <message>
        <source>The engine is not running</source>
        <translation>Die Engine läuft nicht</translation>
    </message>
    <message>
        <source>The runtime is switched off (ISOLATION_RUNTIME=off or runtime/enabled=false)</source>
        <translation>Die Laufzeitumgebung ist ausgeschaltet (ISOLATION_RUNTIME=off oder runtime/enabled=false)</translation>
    </message>
    <message>
        <source>the engine is not running</source>
        <translation>die Engine läuft nicht</translation>
    </message>
    <message>
        <source>Not paired: this computer was unpaired from Isolation (its credential was revoked). Pair it again to reconnect</source>
        <translation>Nicht gekoppelt: Dieser Computer wurde von Isolation entkoppelt (seine Zugangsdaten wurden widerrufen). Koppeln Sie ihn erneut, um sich wieder zu verbinden</translation>
    </message>
    <message>
        <source>Not paired: the hub no longer knows this computer (%1). Pair it again</source>
        <translation>Nicht gekoppelt: Der Hub kennt diesen Computer nicht mehr (%1). Koppeln Sie ihn erneut</translation>
    </message>
    <message>
        <source>Online: paired with %1 as %2</source>
        <translation>Online: mit %1 gekoppelt als %2</translation>
    </message>
    <message>
        <source>Online: connected to %1</source>
        <translation>Online: mit %1 verbunden</translation>
    </message>
    <message>
        <source>Cannot connect to %1: %2</source>
        <translation>Keine Verbindung zu %1: %2</translation>
    </message>
    <message>
        <source>Reconnecting to %1: %2</source>
        <translation>Neue Verbindung zu %1: %2</translation>
    </message>
    <message>
        <source>connecting</source>
        <translation>Verbindung wird aufgebaut</translation>
    </message>
    <message>
        <source>Pairing: approve the code shown for this computer</source>
        <translation>Kopplung: Bestätigen Sie den angezeigten Code für diesen Computer</translation>
    </message>
    <message>
        <source>Not paired</source>
        <translation>Nicht gekoppelt</translation>
    </message>
    <message>
        <source>Not paired: pair this computer with Isolation to start working</source>
        <translation>Nicht gekoppelt: Koppeln Sie diesen Computer mit Isolation, um loszulegen</translation>
    </message>
    <message>
        <source>Not paired: this computer was unpaired</source>
        <translation>Nicht gekoppelt: Dieser Computer wurde entkoppelt</translation>
    </message>
    <message>
        <source>This computer is not paired</source>
        <translation>Dieser Computer ist nicht gekoppelt</translation>
    </message>
</context>
<context>
    <name>isolation::MainWindow</name>
    <message>
        <source>Isolation</source>
        <translation>Isolation</translation>
    </message>
    <message>
        <source>Engine state</source>
        <translation>Zustand der Engine</translation>
    </message>
    <message>
        <source>Views</source>
        <translation>Ansichten</translation>
    </message>
    <message>
        <source>Sessions</source>
        <translation>Sitzungen</translation>
    </message>
    <message>
        <source>Every session on this computer: its workspace, state, commits ahead of and behind main, the last save, and actions.</source>
        <translation>Jede Sitzung auf diesem Computer: Arbeitsbereich, Zustand, Commits vor und hinter main, letzte Sicherung und Aktionen.</translation>
    </message>
    <message>
        <source>&amp;Sessions</source>
        <translation>&amp;Sitzungen</translation>
    </message>
    <message>
        <source>Changes</source>
        <translation>Änderungen</translation>
    </message>
    <message>
        <source>The files a session touched, with a diff of each, to save all of them or a selection.</source>
        <translation>Die Dateien, die eine Sitzung geändert hat, jeweils mit Diff – alle oder eine Auswahl sichern.</translation>
    </message>
    <message>
        <source>&amp;Changes</source>
        <translation>Än&amp;derungen</translation>
    </message>
    <message>
        <source>Conflicts</source>
        <translation>Konflikte</translation>
    </message>
    <message>
        <source>Files in conflict after a sync, how many conflict regions each has and which save the other side came from.</source>
        <translation>Dateien mit Konflikten nach einem Abgleich, wie viele Konfliktstellen jede hat und aus welcher Sicherung die andere Seite stammt.</translation>
    </message>
    <message>
        <source>C&amp;onflicts</source>
        <translation>K&amp;onflikte</translation>
    </message>
    <message>
        <source>Warm cache</source>
        <translation>Warmer Cache</translation>
    </message>
    <message>
        <source>The workspaces cached on this computer for fast launches: size, last use, and eviction.</source>
        <translation>Die auf diesem Computer für schnelle Starts zwischengespeicherten Arbeitsbereiche: Größe, letzte Nutzung und Entfernen.</translation>
    </message>
    <message>
        <source>&amp;Warm cache</source>
        <translation>&amp;Warmer Cache</translation>
    </message>
    <message>
        <source>&amp;Runtime</source>
        <translation>&amp;Laufzeitumgebung</translation>
    </message>
    <message>
        <source>&amp;Activity</source>
        <translation>&amp;Aktivität</translation>
    </message>
    <message>
        <source>Not available yet in this version.</source>
        <translation>In dieser Version noch nicht verfügbar.</translation>
    </message>
</context>
<context>
    <name>isolation::PairingController</name>
    <message>
        <source>Cannot read this computer&apos;s credentials from %1: %2</source>
        <translation>Die Zugangsdaten dieses Computers können nicht aus %1 gelesen werden: %2</translation>
    </message>
    <message>
        <source>The credentials stored in %1 are unusable (%2); unpair and pair again</source>
        <translation>Die in %1 gespeicherten Zugangsdaten sind unbrauchbar (%2); entkoppeln und erneut koppeln</translation>
    </message>
    <message>
        <source>This computer is already paired; unpair it first</source>
        <translation>Dieser Computer ist bereits gekoppelt; entkoppeln Sie ihn zuerst</translation>
    </message>
    <message>
        <source>A pairing is already under way</source>
        <translation>Eine Kopplung läuft bereits</translation>
    </message>
    <message>
        <source>The hub URL must be an http or https URL</source>
        <translation>Die Hub-URL muss eine http- oder https-URL sein</translation>
    </message>
    <message>
        <source>Paired, but the credentials could not be stored in %1: %2</source>
        <translation>Gekoppelt, aber die Zugangsdaten konnten nicht in %1 gespeichert werden: %2</translation>
    </message>
    <message>
        <source>Paired with %1</source>
        <translation>Gekoppelt mit %1</translation>
    </message>
</context>
<context>
    <name>isolation::PairingDialog</name>
    <message>
        <source>Pair this computer</source>
        <translation>Diesen Computer koppeln</translation>
    </message>
    <message>
        <source>Pairing code</source>
        <translation>Kopplungscode</translation>
    </message>
    <message>
        <source>QR code of the approval link</source>
        <translation>QR-Code des Bestätigungslinks</translation>
    </message>
    <message>
        <source>&amp;Open in browser</source>
        <translation>Im &amp;Browser öffnen</translation>
    </message>
    <message>
        <source>&amp;Copy link</source>
        <translation>Link &amp;kopieren</translation>
    </message>
    <message>
        <source>&amp;Try again</source>
        <translation>&amp;Erneut versuchen</translation>
    </message>
    <message>
        <source>Cancel</source>
        <translation>Abbrechen</translation>
    </message>
    <message>
        <source>Copied</source>
        <translation>Kopiert</translation>
    </message>
    <message>
        <source>Open the link (or scan the code) and approve this computer. Check that the page shows this code:</source>
        <translation>Öffnen Sie den Link (oder scannen Sie den Code) und bestätigen Sie diesen Computer. Prüfen Sie, dass die Seite diesen Code zeigt:</translation>
    </message>
    <message>
        <source>Asking %1 for a code…</source>
        <translation>Code wird bei %1 angefordert…</translation>
    </message>
    <message>
        <source>Approved. Saving this computer&apos;s keys…</source>
        <translation>Bestätigt. Die Schlüssel dieses Computers werden gespeichert…</translation>
    </message>
    <message>
        <source>Paired. This computer is now connected to Isolation.</source>
        <translation>Gekoppelt. Dieser Computer ist jetzt mit Isolation verbunden.</translation>
    </message>
    <message>
        <source>Close</source>
        <translation>Schließen</translation>
    </message>
    <message>
        <source>The code has expired</source>
        <translation>Der Code ist abgelaufen</translation>
    </message>
    <message>
        <source>The code expires in %1:%2</source>
        <translation>Der Code läuft in %1:%2 ab</translation>
    </message>
</context>
<context>
    <name>isolation::PairingFlow</name>
    <message>
        <source>Pairing was cancelled</source>
        <translation>Die Kopplung wurde abgebrochen</translation>
    </message>
    <message>
        <source>The pairing code expired before it was approved</source>
        <translation>Der Kopplungscode ist abgelaufen, bevor er bestätigt wurde</translation>
    </message>
    <message>
        <source>Pairing was denied</source>
        <translation>Die Kopplung wurde abgelehnt</translation>
    </message>
    <message>
        <source>Pairing was denied: %1</source>
        <translation>Die Kopplung wurde abgelehnt: %1</translation>
    </message>
    <message>
        <source>Pairing failed: %1</source>
        <translation>Die Kopplung ist fehlgeschlagen: %1</translation>
    </message>
    <message>
        <source>The member key from the hub could not be opened: %1</source>
        <translation>Der Mitgliedsschlüssel vom Hub konnte nicht geöffnet werden: %1</translation>
    </message>
    <message>
        <source>The hub&apos;s approval is incomplete</source>
        <translation>Die Bestätigung des Hubs ist unvollständig</translation>
    </message>
</context>
<context>
    <name>isolation::RuntimeManager</name>
    <message>
        <source>The runtime has not been started</source>
        <translation>Die Laufzeitumgebung wurde nicht gestartet</translation>
    </message>
    <message>
        <source>Starting the runtime</source>
        <translation>Die Laufzeitumgebung wird gestartet</translation>
    </message>
    <message>
        <source>Cannot read the runtime&apos;s API key from %1: %2</source>
        <translation>Der API-Schlüssel der Laufzeitumgebung kann nicht aus %1 gelesen werden: %2</translation>
    </message>
    <message>
        <source>Cannot store the runtime&apos;s API key in %1: %2</source>
        <translation>Der API-Schlüssel der Laufzeitumgebung kann nicht in %1 gespeichert werden: %2</translation>
    </message>
    <message>
        <source>Runtime healthy: %1</source>
        <translation>Laufzeitumgebung in Ordnung: %1</translation>
    </message>
    <message>
        <source>Docker is not available: %1</source>
        <translation>Docker ist nicht verfügbar: %1</translation>
    </message>
    <message>
        <source>The runtime is not started</source>
        <translation>Die Laufzeitumgebung ist nicht gestartet</translation>
    </message>
    <message>
        <source>Restarting the runtime</source>
        <translation>Die Laufzeitumgebung wird neu gestartet</translation>
    </message>
    <message>
        <source>The runtime was removed</source>
        <translation>Die Laufzeitumgebung wurde entfernt</translation>
    </message>
</context>
<context>
    <name>isolation::RuntimePage</name>
    <message>
        <source>Runtime</source>
        <translation>Laufzeitumgebung</translation>
    </message>
    <message>
        <source>Sandboxes run in containers made by the pinned OpenSandbox runtime, which the engine keeps running in Docker on this computer.</source>
        <translation>Sandboxes laufen in Containern, die die festgelegte OpenSandbox-Laufzeitumgebung erstellt; die Engine hält sie in Docker auf diesem Computer am Laufen.</translation>
    </message>
    <message>
        <source>State:</source>
        <translation>Zustand:</translation>
    </message>
    <message>
        <source>Details:</source>
        <translation>Details:</translation>
    </message>
    <message>
        <source>Pinned version:</source>
        <translation>Festgelegte Version:</translation>
    </message>
    <message>
        <source>Runtime image:</source>
        <translation>Image der Laufzeitumgebung:</translation>
    </message>
    <message>
        <source>Sandbox agent image:</source>
        <translation>Image des Sandbox-Agenten:</translation>
    </message>
    <message>
        <source>Image digest:</source>
        <translation>Image-Digest:</translation>
    </message>
    <message>
        <source>Container:</source>
        <translation>Container:</translation>
    </message>
    <message>
        <source>Up for:</source>
        <translation>Läuft seit:</translation>
    </message>
    <message>
        <source>Restarts:</source>
        <translation>Neustarts:</translation>
    </message>
    <message>
        <source>Session files:</source>
        <translation>Sitzungsdateien:</translation>
    </message>
    <message>
        <source>&amp;Restart runtime</source>
        <translation>Laufzeitumgebung &amp;neu starten</translation>
    </message>
    <message>
        <source>Stops and starts the runtime container. Running sandboxes keep running.</source>
        <translation>Hält den Container der Laufzeitumgebung an und startet ihn neu. Laufende Sandboxes laufen weiter.</translation>
    </message>
    <message>
        <source>%1 s</source>
        <translation>%1 s</translation>
    </message>
    <message>
        <source>%1 min %2 s</source>
        <translation>%1 min %2 s</translation>
    </message>
    <message>
        <source>%1 h %2 min</source>
        <translation>%1 h %2 min</translation>
    </message>
    <message>
        <source>%1 d %2 h</source>
        <translation>%1 d %2 h</translation>
    </message>
    <message>
        <source>Healthy</source>
        <translation>In Ordnung</translation>
    </message>
    <message>
        <source>Starting</source>
        <translation>Startet</translation>
    </message>
    <message>
        <source>Not answering</source>
        <translation>Antwortet nicht</translation>
    </message>
    <message>
        <source>Restarting</source>
        <translation>Startet neu</translation>
    </message>
    <message>
        <source>Upgrading</source>
        <translation>Wird aktualisiert</translation>
    </message>
    <message>
        <source>Docker is not available</source>
        <translation>Docker ist nicht verfügbar</translation>
    </message>
    <message>
        <source>Failed</source>
        <translation>Fehlgeschlagen</translation>
    </message>
    <message>
        <source>Not running</source>
        <translation>Läuft nicht</translation>
    </message>
    <message>
        <source>(offline stand-in)</source>
        <translation>(Offline-Ersatz)</translation>
    </message>
    <message>
        <source>Restarting…</source>
        <translation>Neustart…</translation>
    </message>
</context>
<context>
    <name>isolation::SettingsDialog</name>
    <message>
        <source>Isolation settings</source>
        <translation>Isolation-Einstellungen</translation>
    </message>
    <message>
        <source>Hub URL</source>
        <translation>Hub-URL</translation>
    </message>
    <message>
        <source>&amp;Hub:</source>
        <translation>&amp;Hub:</translation>
    </message>
    <message>
        <source>Data:</source>
        <translation>Daten:</translation>
    </message>
    <message>
        <source>Pairing:</source>
        <translation>Kopplung:</translation>
    </message>
    <message>
        <source>&amp;Unpair this computer…</source>
        <translation>Diesen Computer &amp;entkoppeln…</translation>
    </message>
    <message>
        <source>Paired as %1 (%2)</source>
        <translation>Gekoppelt als %1 (%2)</translation>
    </message>
    <message>
        <source>Not paired</source>
        <translation>Nicht gekoppelt</translation>
    </message>
    <message>
        <source>This computer is not paired</source>
        <translation>Dieser Computer ist nicht gekoppelt</translation>
    </message>
    <message>
        <source>Unpair first to pair with another hub</source>
        <translation>Zuerst entkoppeln, um mit einem anderen Hub zu koppeln</translation>
    </message>
    <message>
        <source>Unpair this computer?</source>
        <translation>Diesen Computer entkoppeln?</translation>
    </message>
    <message>
        <source>Isolation will no longer reach sessions on this computer until you pair it again. Unpair?</source>
        <translation>Isolation erreicht die Sitzungen auf diesem Computer erst wieder, wenn Sie ihn erneut koppeln. Entkoppeln?</translation>
    </message>
</context>
<context>
    <name>isolation::TrayApplication</name>
    <message>
        <source>&amp;Pair this computer…</source>
        <translation>Diesen Computer &amp;koppeln…</translation>
    </message>
    <message>
        <source>&amp;Open Isolation…</source>
        <translation>Isolation ö&amp;ffnen…</translation>
    </message>
    <message>
        <source>&amp;Settings…</source>
        <translation>&amp;Einstellungen…</translation>
    </message>
    <message>
        <source>&amp;Quit</source>
        <translation>&amp;Beenden</translation>
    </message>
    <message>
        <source>Isolation: %1</source>
        <translation>Isolation: %1</translation>
    </message>
    <message>
        <source>This computer is no longer paired</source>
        <translation>Dieser Computer ist nicht mehr gekoppelt</translation>
    </message>
    <message>
        <source>Open Isolation</source>
        <translation>Isolation öffnen</translation>
    </message>
    <message>
        <source>Pair again…</source>
        <translation>Erneut koppeln…</translation>
    </message>
</context>
<context>
    <name>isolation::TunnelClient</name>
    <message>
        <source>Tunnel not started</source>
        <translation>Tunnel nicht gestartet</translation>
    </message>
    <message>
        <source>the hub did not complete the tunnel handshake in time</source>
        <translation>der Hub hat den Tunnel-Handshake nicht rechtzeitig abgeschlossen</translation>
    </message>
    <message>
        <source>the hub URL is not valid: %1</source>
        <translation>die Hub-URL ist ungültig: %1</translation>
    </message>
    <message>
        <source>the hub URL must be https:// or wss://: %1</source>
        <translation>die Hub-URL muss https:// oder wss:// sein: %1</translation>
    </message>
    <message>
        <source>refusing an unencrypted tunnel to %1: use wss:// (ws:// is for loopback hubs only)</source>
        <translation>unverschlüsselter Tunnel zu %1 abgelehnt: verwenden Sie wss:// (ws:// nur für lokale Hubs)</translation>
    </message>
    <message>
        <source>the server id is not valid</source>
        <translation>die Server-ID ist ungültig</translation>
    </message>
    <message>
        <source>the tunnel needs the server credential and key</source>
        <translation>der Tunnel braucht die Zugangsdaten und den Schlüssel des Servers</translation>
    </message>
    <message>
        <source>Tunnel stopped</source>
        <translation>Tunnel angehalten</translation>
    </message>
    <message>
        <source>Closing the tunnel: finishing open requests</source>
        <translation>Tunnel wird geschlossen: offene Anfragen werden abgeschlossen</translation>
    </message>
    <message>
        <source>Connecting to %1</source>
        <translation>Verbindung zu %1 wird aufgebaut</translation>
    </message>
    <message>
        <source>the hub sent a text message on the tunnel</source>
        <translation>der Hub hat eine Textnachricht über den Tunnel gesendet</translation>
    </message>
    <message>
        <source>the hub refused this server&apos;s credential (HTTP %1)</source>
        <translation>der Hub hat die Zugangsdaten dieses Servers abgelehnt (HTTP %1)</translation>
    </message>
    <message>
        <source>the hub refused the tunnel (HTTP %1)</source>
        <translation>der Hub hat den Tunnel abgelehnt (HTTP %1)</translation>
    </message>
    <message>
        <source>cannot reach the hub: %1</source>
        <translation>der Hub ist nicht erreichbar: %1</translation>
    </message>
    <message>
        <source>the hub closed the tunnel</source>
        <translation>der Hub hat den Tunnel geschlossen</translation>
    </message>
    <message>
        <source>the hub closed the tunnel: %1</source>
        <translation>der Hub hat den Tunnel geschlossen: %1</translation>
    </message>
    <message>
        <source>Connected to %1</source>
        <translation>Verbunden mit %1</translation>
    </message>
    <message>
        <source>the hub closed the tunnel (GOAWAY)</source>
        <translation>der Hub hat den Tunnel geschlossen (GOAWAY)</translation>
    </message>
    <message>
        <source>the hub broke the HTTP/2 protocol</source>
        <translation>der Hub hat das HTTP/2-Protokoll verletzt</translation>
    </message>
    <message>
        <source>Tunnel closed</source>
        <translation>Tunnel geschlossen</translation>
    </message>
    <message>
        <source>Reconnecting in %1 s: %2</source>
        <translation>Neuer Verbindungsversuch in %1 s: %2</translation>
    </message>
    <message>
        <source>the hub stopped answering (silent for %1 s)</source>
        <translation>der Hub antwortet nicht mehr (seit %1 s still)</translation>
    </message>
    <message>
        <source>tunnel drained</source>
        <translation>Tunnel geleert</translation>
    </message>
</context>
</TS>
