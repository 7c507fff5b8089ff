<?xml version="1.0" encoding="utf-8"?>
<!DOCTYPE TS>
<TS version="2.1" language="de_DE">
<context>
    <name>HubUrl</name>
    <message>
        <source>the hub URL is not valid: %1 (give one like https://hub.example.com)</source>
        <translation>Die Hub-URL ist ungültig: %1 (geben Sie eine wie https://hub.example.com an)</translation>
    </message>
    <message>
        <source>refusing hub %1: a hub URL carries no user name or password</source>
        <translation>Hub %1 abgelehnt: Eine Hub-URL enthält weder Benutzernamen noch Passwort</translation>
    </message>
    <message>
        <source>refusing hub %1: a hub URL is https:// (or http:// on this computer: 127.0.0.1, ::1, localhost)</source>
        <translation>Hub %1 abgelehnt: Eine Hub-URL beginnt mit https:// (oder http:// auf diesem Computer: 127.0.0.1, ::1, localhost)</translation>
    </message>
    <message>
        <source>refusing hub %1: a hub must be https:// or on this computer (127.0.0.1, ::1, localhost); use %2</source>
        <translation>Hub %1 abgelehnt: Ein Hub muss https:// verwenden oder auf diesem Computer laufen (127.0.0.1, ::1, localhost); verwenden Sie %2</translation>
    </message>
</context>
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
</context>
<context>
    <name>SessionActivity</name>
    <message>
        <source>from the tray</source>
        <translation>aus der Taskleiste</translation>
    </message>
    <message>
        <source>from the command line</source>
        <translation>von der Befehlszeile</translation>
    </message>
    <message>
        <source>from the cloud</source>
        <translation>aus der Cloud</translation>
    </message>
    <message>
        <source>from the sandbox&apos;s agent</source>
        <translation>vom Agenten der Sandbox</translation>
    </message>
    <message>
        <source>Saved %1 of %2 %3: %4 uploaded</source>
        <translation>%1 von %2 %3 gesichert: %4 hochgeladen</translation>
    </message>
    <message>
        <source>Nothing to save in %1 of %2 %3</source>
        <translation>Nichts zu sichern in %1 von %2 %3</translation>
    </message>
    <message>
        <source>Save of %1 of %2 %3 not published: another session saved first (sync, then save again)</source>
        <translation>Sicherung von %1 von %2 %3 nicht veröffentlicht: Eine andere Sitzung hat zuerst gesichert (abgleichen, dann erneut sichern)</translation>
    </message>
    <message>
        <source>Save of %1 of %2 %3 failed: %4</source>
        <translation>Sicherung von %1 von %2 %3 fehlgeschlagen: %4</translation>
    </message>
    <message>
        <source>Synced %1 of %2 %3 (%4)</source>
        <translation>%1 von %2 %3 abgeglichen (%4)</translation>
    </message>
    <message numerus="yes">
        <source>Synced %1 of %2 %3: %n file(s) left with conflict markers</source>
        <translation>
            <numerusform>%1 von %2 %3 abgeglichen: %n Datei mit Konfliktmarkierungen</numerusform>
            <numerusform>%1 von %2 %3 abgeglichen: %n Dateien mit Konfliktmarkierungen</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>Sync of %1 of %2 %3 stopped: %n file(s) in conflict, nothing changed</source>
        <translation>
            <numerusform>Abgleich von %1 von %2 %3 angehalten: %n Datei im Konflikt, nichts geändert</numerusform>
            <numerusform>Abgleich von %1 von %2 %3 angehalten: %n Dateien im Konflikt, nichts geändert</numerusform>
        </translation>
    </message>
    <message>
        <source>Sync of %1 of %2 %3 failed: %4</source>
        <translation>Abgleich von %1 von %2 %3 fehlgeschlagen: %4</translation>
    </message>
    <message>
        <source>New session %1 of %2 %3</source>
        <translation>Neue Sitzung %1 von %2 %3</translation>
    </message>
    <message>
        <source>Launched session %1 of %2 in a sandbox %3</source>
        <translation>Sitzung %1 von %2 in einer Sandbox gestartet %3</translation>
    </message>
    <message>
        <source>Suspended session %1 of %2 %3</source>
        <translation>Sitzung %1 von %2 angehalten %3</translation>
    </message>
    <message>
        <source>Resumed session %1 of %2 %3</source>
        <translation>Sitzung %1 von %2 fortgesetzt %3</translation>
    </message>
    <message>
        <source>Finished session %1 of %2 %3</source>
        <translation>Sitzung %1 von %2 beendet %3</translation>
    </message>
</context>
<context>
    <name>isolation::ActivityLog</name>
    <message>
        <source>Cannot keep the activity log in %1: %2</source>
        <translation>Das Aktivitätsprotokoll kann nicht in %1 geführt werden: %2</translation>
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
        <source>Session</source>
        <translation>Sitzung</translation>
    </message>
    <message>
        <source>Save</source>
        <translation>Sichern</translation>
    </message>
    <message>
        <source>Sync</source>
        <translation>Abgleich</translation>
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
        <source>S&amp;how:</source>
        <translation>&amp;Zeigen:</translation>
    </message>
    <message>
        <source>Recent events</source>
        <translation>Letzte Ereignisse</translation>
    </message>
</context>
<context>
    <name>isolation::Autostart</name>
    <message>
        <source>Cannot create the folder %1</source>
        <translation>Der Ordner %1 kann nicht angelegt werden</translation>
    </message>
    <message>
        <source>Cannot write %1: %2</source>
        <translation>%1 kann nicht geschrieben werden: %2</translation>
    </message>
    <message>
        <source>Cannot remove %1</source>
        <translation>%1 kann nicht entfernt werden</translation>
    </message>
    <message>
        <source>systemctl --user %1 %2 failed: %3</source>
        <translation>systemctl --user %1 %2 ist fehlgeschlagen: %3</translation>
    </message>
    <message>
        <source>Cannot find isolation-server beside this program or on PATH</source>
        <translation>isolation-server ist weder neben diesem Programm noch im PATH zu finden</translation>
    </message>
    <message>
        <source>Cannot find isolation-tray beside this program or on PATH</source>
        <translation>isolation-tray ist weder neben diesem Programm noch im PATH zu finden</translation>
    </message>
    <message>
        <source>%1 exited with code %2</source>
        <translation>%1 wurde mit Code %2 beendet</translation>
    </message>
    <message>
        <source>%1 crashed</source>
        <translation>%1 ist abgestürzt</translation>
    </message>
    <message>
        <source>Cannot run %1: %2</source>
        <translation>%1 kann nicht ausgeführt werden: %2</translation>
    </message>
    <message numerus="yes">
        <source>%1 did not answer within %n second(s)</source>
        <translation>
            <numerusform>%1 hat nicht innerhalb von %n Sekunde geantwortet</numerusform>
            <numerusform>%1 hat nicht innerhalb von %n Sekunden geantwortet</numerusform>
        </translation>
    </message>
    <message>
        <source>no systemd user unit for the engine here</source>
        <translation>keine systemd-Benutzer-Unit für die Engine auf diesem Rechner</translation>
    </message>
    <message>
        <source>systemctl --user start %1 failed: %2</source>
        <translation>systemctl --user start %1 ist fehlgeschlagen: %2</translation>
    </message>
</context>
<context>
    <name>isolation::CachePage</name>
    <message>
        <source>A local copy of each workspace you worked on, so new sessions start without downloading everything again. Deleting it loses nothing: the hub has every save.</source>
        <translation>Eine lokale Kopie jedes Arbeitsbereichs, an dem Sie gearbeitet haben, damit neue Sitzungen starten, ohne alles erneut herunterzuladen. Löschen verliert nichts: Der Hub hat jede Sicherung.</translation>
    </message>
    <message>
        <source>Cached workspaces</source>
        <translation>Zwischengespeicherte Arbeitsbereiche</translation>
    </message>
    <message>
        <source>Workspace</source>
        <translation>Arbeitsbereich</translation>
    </message>
    <message>
        <source>Size</source>
        <translation>Größe</translation>
    </message>
    <message>
        <source>Last used</source>
        <translation>Zuletzt genutzt</translation>
    </message>
    <message>
        <source>In use</source>
        <translation>In Gebrauch</translation>
    </message>
    <message>
        <source>&amp;Evict</source>
        <translation>&amp;Entfernen</translation>
    </message>
    <message>
        <source>C&amp;lear all</source>
        <translation>Alle lös&amp;chen</translation>
    </message>
    <message>
        <source>Re&amp;fresh</source>
        <translation>A&amp;ktualisieren</translation>
    </message>
    <message>
        <source>The engine is not running.</source>
        <translation>Die Engine läuft nicht.</translation>
    </message>
    <message>
        <source>yes</source>
        <translation>ja</translation>
    </message>
    <message>
        <source>no</source>
        <translation>nein</translation>
    </message>
    <message numerus="yes">
        <source>%n workspace(s), %1 of at most %2</source>
        <translation>
            <numerusform>%n Arbeitsbereich, %1 von höchstens %2</numerusform>
            <numerusform>%n Arbeitsbereiche, %1 von höchstens %2</numerusform>
        </translation>
    </message>
    <message>
        <source>Choose a workspace that no session is using now</source>
        <translation>Wählen Sie einen Arbeitsbereich, den gerade keine Sitzung nutzt</translation>
    </message>
    <message>
        <source>Evicted %1.</source>
        <translation>%1 entfernt.</translation>
    </message>
    <message>
        <source>%1 was not evicted: %2</source>
        <translation>%1 wurde nicht entfernt: %2</translation>
    </message>
    <message>
        <source>The cache is empty.</source>
        <translation>Der Cache ist leer.</translation>
    </message>
    <message numerus="yes">
        <source>Cleared, except %n workspace(s) in use now.</source>
        <translation>
            <numerusform>Gelöscht, außer %n Arbeitsbereich, der gerade genutzt wird.</numerusform>
            <numerusform>Gelöscht, außer %n Arbeitsbereichen, die gerade genutzt werden.</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>isolation::ChangesPage</name>
    <message>
        <source>added</source>
        <translation>hinzugefügt</translation>
    </message>
    <message>
        <source>modified</source>
        <translation>geändert</translation>
    </message>
    <message>
        <source>deleted</source>
        <translation>gelöscht</translation>
    </message>
    <message>
        <source>renamed</source>
        <translation>umbenannt</translation>
    </message>
    <message>
        <source>type changed</source>
        <translation>Typ geändert</translation>
    </message>
    <message>
        <source>in conflict</source>
        <translation>im Konflikt</translation>
    </message>
    <message>
        <source>new</source>
        <translation>neu</translation>
    </message>
    <message>
        <source>Sess&amp;ion:</source>
        <translation>Si&amp;tzung:</translation>
    </message>
    <message>
        <source>Re&amp;fresh</source>
        <translation>A&amp;ktualisieren</translation>
    </message>
    <message>
        <source>Look at the files again and ask the hub whether the workspace moved on</source>
        <translation>Die Dateien erneut ansehen und den Hub fragen, ob der Arbeitsbereich weiter ist</translation>
    </message>
    <message>
        <source>Changed files</source>
        <translation>Geänderte Dateien</translation>
    </message>
    <message>
        <source>File</source>
        <translation>Datei</translation>
    </message>
    <message>
        <source>Status</source>
        <translation>Status</translation>
    </message>
    <message>
        <source>Diff of the chosen file</source>
        <translation>Diff der gewählten Datei</translation>
    </message>
    <message>
        <source>What changed (optional)</source>
        <translation>Was sich geändert hat (optional)</translation>
    </message>
    <message>
        <source>&amp;Message:</source>
        <translation>&amp;Nachricht:</translation>
    </message>
    <message>
        <source>Save s&amp;elected</source>
        <translation>Auswa&amp;hl sichern</translation>
    </message>
    <message>
        <source>Save a&amp;ll</source>
        <translation>Alles s&amp;ichern</translation>
    </message>
    <message>
        <source>Saved.</source>
        <translation>Gesichert.</translation>
    </message>
    <message>
        <source>Nothing to save.</source>
        <translation>Nichts zu sichern.</translation>
    </message>
    <message>
        <source>Another session saved first. Your work is kept here: sync, then save again.</source>
        <translation>Eine andere Sitzung hat zuerst gesichert. Ihre Arbeit bleibt hier erhalten: abgleichen, dann erneut sichern.</translation>
    </message>
    <message>
        <source>%1 (from %2)</source>
        <translation>%1 (aus %2)</translation>
    </message>
    <message>
        <source>No session: start one on the Sessions tab.</source>
        <translation>Keine Sitzung: Starten Sie eine im Reiter Sitzungen.</translation>
    </message>
    <message>
        <source>Looking at the files…</source>
        <translation>Dateien werden angesehen…</translation>
    </message>
    <message>
        <source>%1 changed files; %2 commits ahead of main, %3 behind%4</source>
        <translation>%1 geänderte Dateien; %2 Commits vor main, %3 dahinter%4</translation>
    </message>
    <message>
        <source>; a merge is in progress (save completes it)</source>
        <translation>; eine Zusammenführung läuft (Sichern schließt sie ab)</translation>
    </message>
    <message>
        <source>Choose a session first</source>
        <translation>Wählen Sie zuerst eine Sitzung</translation>
    </message>
    <message>
        <source>The session is busy: %1</source>
        <translation>Die Sitzung ist beschäftigt: %1</translation>
    </message>
    <message>
        <source>Pair this computer first: saving needs the hub</source>
        <translation>Koppeln Sie zuerst diesen Computer: Sichern braucht den Hub</translation>
    </message>
    <message>
        <source>Nothing to save: no file changed</source>
        <translation>Nichts zu sichern: keine Datei geändert</translation>
    </message>
    <message>
        <source>Tick the files to save</source>
        <translation>Haken Sie die zu sichernden Dateien an</translation>
    </message>
    <message>
        <source>Save s&amp;elected (%1)</source>
        <translation>Auswa&amp;hl sichern (%1)</translation>
    </message>
    <message>
        <source>Reading %1…</source>
        <translation>%1 wird gelesen…</translation>
    </message>
    <message>
        <source>No diff of %1: %2</source>
        <translation>Kein Diff von %1: %2</translation>
    </message>
    <message>
        <source>%1 is a binary file.</source>
        <translation>%1 ist eine Binärdatei.</translation>
    </message>
    <message>
        <source>(the diff goes on; only its start is shown)</source>
        <translation>(der Diff geht weiter; nur sein Anfang wird gezeigt)</translation>
    </message>
    <message numerus="yes">
        <source>Saving %n file(s)…</source>
        <translation>
            <numerusform>%n Datei wird gesichert…</numerusform>
            <numerusform>%n Dateien werden gesichert…</numerusform>
        </translation>
    </message>
    <message>
        <source>Saving every change…</source>
        <translation>Alle Änderungen werden gesichert…</translation>
    </message>
    <message>
        <source>, %1/s</source>
        <translation>, %1/s</translation>
    </message>
    <message>
        <source>, %1 left</source>
        <translation>, noch %1</translation>
    </message>
    <message>
        <source>Ca&amp;ncel</source>
        <translation>A&amp;bbrechen</translation>
    </message>
    <message>
        <source>Cancelling…</source>
        <translation>Wird abgebrochen…</translation>
    </message>
    <message>
        <source>Stopping at the next safe point; what was done is undone</source>
        <translation>Hält am nächsten sicheren Punkt an; was schon getan wurde, wird rückgängig gemacht</translation>
    </message>
    <message>
        <source>Stop it: nothing is published, and your work stays on the session</source>
        <translation>Anhalten: nichts wird veröffentlicht, und Ihre Arbeit bleibt in der Sitzung</translation>
    </message>
    <message>
        <source>It cannot be stopped now: wait for it to end</source>
        <translation>Das lässt sich jetzt nicht anhalten: warten Sie, bis es endet</translation>
    </message>
    <message>
        <source>Stop it: the new session is removed</source>
        <translation>Anhalten: die neue Sitzung wird entfernt</translation>
    </message>
</context>
<context>
    <name>isolation::ConflictsPage</name>
    <message>
        <source>Sess&amp;ion:</source>
        <translation>Si&amp;tzung:</translation>
    </message>
    <message>
        <source>Files in conflict</source>
        <translation>Dateien im Konflikt</translation>
    </message>
    <message>
        <source>File</source>
        <translation>Datei</translation>
    </message>
    <message>
        <source>Conflict regions</source>
        <translation>Konfliktstellen</translation>
    </message>
    <message>
        <source>State</source>
        <translation>Zustand</translation>
    </message>
    <message>
        <source>Open in &amp;editor</source>
        <translation>Im Editor ö&amp;ffnen</translation>
    </message>
    <message>
        <source>Sync and leave &amp;markers</source>
        <translation>Abgleichen und &amp;Markierungen setzen</translation>
    </message>
    <message>
        <source>Merge the workspace&apos;s newest save into this session, leaving git&apos;s conflict markers in the files for you to edit</source>
        <translation>Die neueste Sicherung des Arbeitsbereichs in diese Sitzung zusammenführen und die Konfliktmarkierungen von git zum Bearbeiten in den Dateien lassen</translation>
    </message>
    <message>
        <source>Save to &amp;finish</source>
        <translation>Sichern zum Abschl&amp;ießen</translation>
    </message>
    <message>
        <source>Saves the session: completes the merge once no markers are left</source>
        <translation>Sichert die Sitzung: schließt die Zusammenführung ab, sobald keine Markierungen mehr da sind</translation>
    </message>
    <message>
        <source>%1 of %2 left</source>
        <translation>%1 von %2 übrig</translation>
    </message>
    <message>
        <source>not merged yet</source>
        <translation>noch nicht zusammengeführt</translation>
    </message>
    <message>
        <source>resolved</source>
        <translation>gelöst</translation>
    </message>
    <message>
        <source>markers in the file</source>
        <translation>Markierungen in der Datei</translation>
    </message>
    <message>
        <source>No conflicts.</source>
        <translation>Keine Konflikte.</translation>
    </message>
    <message numerus="yes">
        <source>%n file(s) conflict with the workspace&apos;s newest save. Nothing was changed: &quot;Sync and leave markers&quot; merges it in and marks the conflicting regions in the files.</source>
        <translation>
            <numerusform>%n Datei steht im Konflikt mit der neuesten Sicherung des Arbeitsbereichs. Nichts wurde geändert: „Abgleichen und Markierungen setzen“ führt sie zusammen und markiert die Konfliktstellen in den Dateien.</numerusform>
            <numerusform>%n Dateien stehen im Konflikt mit der neuesten Sicherung des Arbeitsbereichs. Nichts wurde geändert: „Abgleichen und Markierungen setzen“ führt sie zusammen und markiert die Konfliktstellen in den Dateien.</numerusform>
        </translation>
    </message>
    <message>
        <source>%1 of %2 files resolved. Edit the files to remove the conflict markers, then save to finish the merge.</source>
        <translation>%1 von %2 Dateien gelöst. Entfernen Sie die Konfliktmarkierungen aus den Dateien und sichern Sie dann, um die Zusammenführung abzuschließen.</translation>
    </message>
    <message>
        <source>Sync and leave markers first, then choose a file</source>
        <translation>Zuerst abgleichen und Markierungen setzen, dann eine Datei wählen</translation>
    </message>
    <message>
        <source>Every file must be free of conflict markers first</source>
        <translation>Zuerst muss jede Datei frei von Konfliktmarkierungen sein</translation>
    </message>
    <message>
        <source>%1 — %2</source>
        <translation>%1 — %2</translation>
    </message>
    <message>
        <source>No conflicts in this session. Files are in conflict in: %1</source>
        <translation>Keine Konflikte in dieser Sitzung. Dateien im Konflikt in: %1</translation>
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
    <message>
        <source>Connected by the user</source>
        <translation>Vom Benutzer verbunden</translation>
    </message>
    <message>
        <source>Disconnected by the user</source>
        <translation>Vom Benutzer getrennt</translation>
    </message>
    <message>
        <source>Disconnected: the cloud cannot reach this computer until you connect</source>
        <translation>Getrennt: Die Cloud erreicht diesen Computer erst, wenn Sie verbinden</translation>
    </message>
    <message>
        <source>The body must be {&quot;connected&quot;: true|false}</source>
        <translation>Der Inhalt muss {&quot;connected&quot;: true|false} sein</translation>
    </message>
    <message>
        <source>This computer is paired: its hub is the one it is paired with. Unpair first</source>
        <translation>Dieser Computer ist gekoppelt: Sein Hub ist der, mit dem er gekoppelt ist. Entkoppeln Sie ihn zuerst</translation>
    </message>
    <message>
        <source>hubUrl is empty</source>
        <translation>hubUrl ist leer</translation>
    </message>
    <message>
        <source>The cloud cannot reach this computer: %1</source>
        <translation>Die Cloud erreicht diesen Computer nicht: %1</translation>
    </message>
    <message>
        <source>The cloud cannot reach this computer: the tunnel to the hub is down. Check the network connection; the engine keeps trying.</source>
        <translation>Die Cloud erreicht diesen Computer nicht: Der Tunnel zum Hub ist getrennt. Prüfen Sie die Netzwerkverbindung; die Engine versucht es weiter.</translation>
    </message>
    <message>
        <source>Sessions cannot launch here: %1</source>
        <translation>Hier können keine Sitzungen starten: %1</translation>
    </message>
    <message>
        <source>The sandbox runtime is not healthy yet; sessions cannot launch until it is (isolation-server runtime status says more)</source>
        <translation>Die Sandbox-Laufzeit ist noch nicht bereit; bis dahin können keine Sitzungen starten (isolation-server runtime status sagt mehr)</translation>
    </message>
    <message>
        <source>Disconnected: the tunnel is closed until you connect again</source>
        <translation>Getrennt: Der Tunnel bleibt geschlossen, bis Sie wieder verbinden</translation>
    </message>
    <message>
        <source>The tunnel to the hub is not up: %1</source>
        <translation>Der Tunnel zum Hub steht nicht: %1</translation>
    </message>
    <message>
        <source>The sandbox runtime is not healthy: %1</source>
        <translation>Die Sandbox-Laufzeit ist nicht bereit: %1</translation>
    </message>
    <message>
        <source>--metrics-listen wants ADDRESS:PORT, e.g. 127.0.0.1:9464, not %1</source>
        <translation>--metrics-listen erwartet ADRESSE:PORT, z. B. 127.0.0.1:9464, nicht %1</translation>
    </message>
    <message>
        <source>Cannot serve metrics on %1: %2</source>
        <translation>Metriken können nicht auf %1 angeboten werden: %2</translation>
    </message>
</context>
<context>
    <name>isolation::EngineClient</name>
    <message>
        <source>The engine is not running</source>
        <translation>Die Engine läuft nicht</translation>
    </message>
    <message>
        <source>The engine did not answer: %1</source>
        <translation>Die Engine hat nicht geantwortet: %1</translation>
    </message>
    <message>
        <source>The engine stopped before it answered</source>
        <translation>Die Engine wurde beendet, bevor sie antwortete</translation>
    </message>
</context>
<context>
    <name>isolation::EngineConnection</name>
    <message>
        <source>Cannot start the engine (%1): %2</source>
        <translation>Die Engine kann nicht gestartet werden (%1): %2</translation>
    </message>
    <message>
        <source>Starting the engine</source>
        <translation>Die Engine wird gestartet</translation>
    </message>
    <message>
        <source>The engine was started but did not answer within %1 s; its log (engine.log in its state directory) says why</source>
        <translation>Die Engine wurde gestartet, hat aber nicht innerhalb von %1 s geantwortet; ihr Protokoll (engine.log in ihrem Statusverzeichnis) nennt den Grund</translation>
    </message>
</context>
<context>
    <name>isolation::EngineModel</name>
    <message>
        <source>Looking for the engine…</source>
        <translation>Engine wird gesucht…</translation>
    </message>
    <message>
        <source>Starting the engine…</source>
        <translation>Engine wird gestartet…</translation>
    </message>
    <message>
        <source>Reading the engine&apos;s state…</source>
        <translation>Zustand der Engine wird gelesen…</translation>
    </message>
    <message>
        <source>Engine not running</source>
        <translation>Engine läuft nicht</translation>
    </message>
    <message>
        <source>Engine not running: %1</source>
        <translation>Engine läuft nicht: %1</translation>
    </message>
    <message>
        <source>Your keychain is locked. Unlock it (GNOME Keyring, KWallet), then stop and start the engine so it reads this computer&apos;s credentials again.</source>
        <translation>Ihr Schlüsselbund ist gesperrt. Entsperren Sie ihn (GNOME Keyring, KWallet) und stoppen und starten Sie dann die Engine, damit sie die Zugangsdaten dieses Computers erneut liest.</translation>
    </message>
    <message>
        <source>No desktop keychain answers. Start one (GNOME Keyring, KWallet) and start the engine again, or run the engine without one: isolation-server up --credential-store file</source>
        <translation>Kein Schlüsselbund der Arbeitsumgebung antwortet. Starten Sie einen (GNOME Keyring, KWallet) und starten Sie die Engine erneut, oder führen Sie die Engine ohne aus: isolation-server up --credential-store file</translation>
    </message>
    <message>
        <source>The credentials stored for this computer are unusable: unpair it and pair it again.</source>
        <translation>Die für diesen Computer gespeicherten Zugangsdaten sind unbrauchbar: Entkoppeln Sie ihn und koppeln Sie ihn erneut.</translation>
    </message>
    <message>
        <source>Unlock your keychain (GNOME Keyring, KWallet) and start the engine again, or run it without one: isolation-server up --credential-store file</source>
        <translation>Entsperren Sie Ihren Schlüsselbund (GNOME Keyring, KWallet) und starten Sie die Engine erneut, oder führen Sie sie ohne aus: isolation-server up --credential-store file</translation>
    </message>
</context>
<context>
    <name>isolation::FinishFlow</name>
    <message>
        <source>Finish session</source>
        <translation>Sitzung beenden</translation>
    </message>
    <message>
        <source>Finish session %1? Its sandbox is deleted and its folder removed from this computer.</source>
        <translation>Sitzung %1 beenden? Ihre Sandbox wird gelöscht und ihr Ordner von diesem Computer entfernt.</translation>
    </message>
    <message>
        <source>&amp;Finish</source>
        <translation>&amp;Beenden</translation>
    </message>
    <message>
        <source>Unsaved work</source>
        <translation>Nicht gesicherte Arbeit</translation>
    </message>
    <message>
        <source>%1

Discard the unsaved work and finish?</source>
        <translation>%1

Nicht gesicherte Arbeit verwerfen und beenden?</translation>
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
        <source>&amp;Sessions</source>
        <translation>&amp;Sitzungen</translation>
    </message>
    <message>
        <source>&amp;Changes</source>
        <translation>Än&amp;derungen</translation>
    </message>
    <message>
        <source>C&amp;onflicts</source>
        <translation>K&amp;onflikte</translation>
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
        <source>S&amp;tart the engine</source>
        <translation>Engine s&amp;tarten</translation>
    </message>
    <message>
        <source>&amp;Pair this computer…</source>
        <translation>Diesen Computer &amp;koppeln…</translation>
    </message>
    <message>
        <source>Warnings</source>
        <translation>Warnungen</translation>
    </message>
    <message>
        <source>Error: %1 (since %2)</source>
        <translation>Fehler: %1 (seit %2)</translation>
    </message>
    <message>
        <source>Warning: %1 (since %2)</source>
        <translation>Warnung: %1 (seit %2)</translation>
    </message>
    <message>
        <source>&lt;b&gt;This computer is not paired.&lt;/b&gt; Pair it with your Isolation account so that sessions can be started and saved here.</source>
        <translation>&lt;b&gt;Dieser Computer ist nicht gekoppelt.&lt;/b&gt; Koppeln Sie ihn mit Ihrem Isolation-Konto, damit hier Sitzungen gestartet und gesichert werden können.</translation>
    </message>
</context>
<context>
    <name>isolation::MirrorSync</name>
    <message>
        <source>a segment of the workspace needs commits that no earlier segment brings</source>
        <translation>ein Segment des Arbeitsbereichs braucht Commits, die kein früheres Segment liefert</translation>
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
    <message>
        <source>Cannot serve Docker to the runtime: %1</source>
        <translation>Docker kann der Laufzeitumgebung nicht bereitgestellt werden: %1</translation>
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
        <source>Res&amp;tart runtime</source>
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
    <name>isolation::SandboxControl</name>
    <message>
        <source>cannot create %1</source>
        <translation>%1 kann nicht angelegt werden</translation>
    </message>
    <message>
        <source>cannot open %1: %2</source>
        <translation>%1 kann nicht geöffnet werden: %2</translation>
    </message>
    <message>
        <source>cannot watch %1</source>
        <translation>%1 kann nicht beobachtet werden</translation>
    </message>
    <message>
        <source>the request is not a regular file</source>
        <translation>die Anfrage ist keine gewöhnliche Datei</translation>
    </message>
    <message>
        <source>the request is larger than %1 bytes</source>
        <translation>die Anfrage ist größer als %1 Bytes</translation>
    </message>
    <message>
        <source>too many requests at once; ask again later</source>
        <translation>zu viele Anfragen auf einmal; fragen Sie später erneut</translation>
    </message>
    <message>
        <source>cannot write the save and sync scripts into %1</source>
        <translation>die Skripte zum Sichern und Abgleichen können nicht in %1 geschrieben werden</translation>
    </message>
    <message>
        <source>sync takes --resolve or nothing</source>
        <translation>sync nimmt --resolve oder nichts</translation>
    </message>
</context>
<context>
    <name>isolation::SaveFlow</name>
    <message>
        <source>This computer is not paired: pair it to save to the hub</source>
        <translation>Dieser Computer ist nicht gekoppelt: Koppeln Sie ihn, um auf dem Hub zu sichern</translation>
    </message>
    <message>
        <source>The workspace moved on since this session last synced: sync, then save again</source>
        <translation>Der Arbeitsbereich ist seit dem letzten Abgleich dieser Sitzung weiter: abgleichen, dann erneut sichern</translation>
    </message>
    <message>
        <source>main and this session conflict: sync first (%1)</source>
        <translation>main und diese Sitzung stehen im Konflikt: zuerst abgleichen (%1)</translation>
    </message>
    <message>
        <source>cannot create %1</source>
        <translation>%1 kann nicht erstellt werden</translation>
    </message>
    <message>
        <source>The workspace moved on: sync, then save again</source>
        <translation>Der Arbeitsbereich ist weiter: abgleichen, dann erneut sichern</translation>
    </message>
    <message>
        <source>The hub did not confirm the save and cannot be asked now (%1); it is settled before the next save or sync</source>
        <translation>Der Hub hat die Sicherung nicht bestätigt und ist gerade nicht erreichbar (%1); sie wird vor der nächsten Sicherung oder dem nächsten Abgleich geklärt</translation>
    </message>
    <message>
        <source>Another save reached the hub first: nothing was written; sync, then save again</source>
        <translation>Eine andere Sicherung hat den Hub zuerst erreicht: nichts wurde geschrieben; abgleichen, dann erneut sichern</translation>
    </message>
    <message>
        <source>Save cancelled: nothing was published; the merge into main is undone, the work stays on the session branch</source>
        <translation>Speichern abgebrochen: nichts wurde veröffentlicht; die Zusammenführung in main ist rückgängig gemacht, die Arbeit bleibt auf dem Sitzungszweig</translation>
    </message>
    <message>
        <source>Save cancelled: nothing was published; the work stays on the session</source>
        <translation>Speichern abgebrochen: nichts wurde veröffentlicht; die Arbeit bleibt in der Sitzung</translation>
    </message>
</context>
<context>
    <name>isolation::Session</name>
    <message>
        <source>the engine is stopping</source>
        <translation>die Engine wird beendet</translation>
    </message>
    <message>
        <source>This computer is no longer paired</source>
        <translation>Dieser Computer ist nicht mehr gekoppelt</translation>
    </message>
    <message>
        <source>The session is still opening</source>
        <translation>Die Sitzung wird noch geöffnet</translation>
    </message>
    <message>
        <source>This computer is not paired: pair it to ask the hub</source>
        <translation>Dieser Computer ist nicht gekoppelt: Koppeln Sie ihn, um den Hub zu fragen</translation>
    </message>
    <message>
        <source>This computer is not paired: the last save cannot be settled</source>
        <translation>Dieser Computer ist nicht gekoppelt: Die letzte Sicherung kann nicht geklärt werden</translation>
    </message>
    <message>
        <source>The outcome of save %1 is not known yet (%2): it is settled before the next save or sync</source>
        <translation>Das Ergebnis der Sicherung %1 ist noch nicht bekannt (%2): Es wird vor der nächsten Sicherung oder dem nächsten Abgleich geklärt</translation>
    </message>
    <message>
        <source>the session is finishing</source>
        <translation>die Sitzung wird beendet</translation>
    </message>
    <message>
        <source>The worktree of session %1 is gone from the disk (%2). Restore it from the session branch with `isolation-server restore %1` (what was not saved is lost), or finish the session with `isolation-server finish %1 --discard`</source>
        <translation>Der Arbeitsordner der Sitzung %1 ist nicht mehr auf der Festplatte (%2). Stellen Sie ihn mit `isolation-server restore %1` aus dem Sitzungszweig wieder her (nicht Gespeichertes ist verloren) oder beenden Sie die Sitzung mit `isolation-server finish %1 --discard`</translation>
    </message>
    <message>
        <source>The save message is %1 bytes long; the limit is %2 bytes</source>
        <translation>Die Speichernachricht ist %1 Bytes lang; erlaubt sind höchstens %2 Bytes</translation>
    </message>
    <message>
        <source>The worktree of session %1 is there (%2): nothing to restore</source>
        <translation>Der Arbeitsordner der Sitzung %1 ist vorhanden (%2): nichts wiederherzustellen</translation>
    </message>
    <message>
        <source>Nothing to cancel: no operation runs</source>
        <translation>Nichts abzubrechen: es läuft kein Vorgang</translation>
    </message>
    <message>
        <source>The %1 can no longer be cancelled: it is in its last step</source>
        <translation>Der Vorgang %1 kann nicht mehr abgebrochen werden: er ist in seinem letzten Schritt</translation>
    </message>
    <message>
        <source>The %1 can no longer be cancelled</source>
        <translation>Der Vorgang %1 kann nicht mehr abgebrochen werden</translation>
    </message>
    <message>
        <source>The sandbox&apos;s launch can no longer be cancelled</source>
        <translation>Der Start der Sandbox kann nicht mehr abgebrochen werden</translation>
    </message>
    <message>
        <source>Start cancelled: the new session is removed</source>
        <translation>Start abgebrochen: die neue Sitzung wird entfernt</translation>
    </message>
</context>
<context>
    <name>isolation::SessionManager</name>
    <message>
        <source>This computer is no longer paired</source>
        <translation>Dieser Computer ist nicht mehr gekoppelt</translation>
    </message>
    <message>
        <source>This computer is not paired: pair it to see its member&apos;s workspaces</source>
        <translation>Dieser Computer ist nicht gekoppelt: Koppeln Sie ihn, um die Arbeitsbereiche seines Mitglieds zu sehen</translation>
    </message>
    <message>
        <source>No workspace named %1</source>
        <translation>Kein Arbeitsbereich namens %1</translation>
    </message>
    <message numerus="yes">
        <source>%n workspaces are named %1: give the id</source>
        <translation>
            <numerusform>%n Arbeitsbereich heißt %1: Geben Sie die ID an</numerusform>
            <numerusform>%n Arbeitsbereiche heißen %1: Geben Sie die ID an</numerusform>
        </translation>
    </message>
    <message>
        <source>cannot create %1</source>
        <translation>%1 kann nicht erstellt werden</translation>
    </message>
    <message>
        <source>This computer is not paired</source>
        <translation>Dieser Computer ist nicht gekoppelt</translation>
    </message>
    <message>
        <source>%1 cannot name a new session (s and 12 hex digits, not used yet)</source>
        <translation>%1 kann keine neue Sitzung benennen (s und 12 Hexadezimalziffern, noch nicht vergeben)</translation>
    </message>
    <message>
        <source>No session %1</source>
        <translation>Keine Sitzung %1</translation>
    </message>
    <message>
        <source>Session %1 is busy (%2): try again when it is done</source>
        <translation>Sitzung %1 ist beschäftigt (%2): Versuchen Sie es erneut, wenn sie fertig ist</translation>
    </message>
</context>
<context>
    <name>isolation::SessionPicker</name>
    <message>
        <source>Session</source>
        <translation>Sitzung</translation>
    </message>
    <message>
        <source>%1 — %2</source>
        <translation>%1 — %2</translation>
    </message>
</context>
<context>
    <name>isolation::SessionSandboxes</name>
    <message>
        <source>launched by an earlier run of the engine; waiting for the runtime</source>
        <translation>von einem früheren Lauf der Engine gestartet; wartet auf die Laufzeitumgebung</translation>
    </message>
    <message>
        <source>This computer is not paired: launch secrets cannot be opened</source>
        <translation>Dieser Computer ist nicht gekoppelt: Start-Geheimnisse können nicht geöffnet werden</translation>
    </message>
    <message>
        <source>Launch secrets come with the session id they were sealed for</source>
        <translation>Start-Geheimnisse kommen mit der Sitzungs-ID, für die sie versiegelt wurden</translation>
    </message>
    <message>
        <source>Launch refused: the launch secrets cannot be used: %1</source>
        <translation>Start abgelehnt: Die Start-Geheimnisse sind nicht verwendbar: %1</translation>
    </message>
    <message>
        <source>The credential of %1 names the launch secret %2, which the launch does not carry</source>
        <translation>Die Zugangsdaten von %1 verweisen auf das Start-Geheimnis %2, das der Start nicht mitbringt</translation>
    </message>
    <message>
        <source>The sandbox runtime is off: sessions can start without a sandbox (session new), not launch</source>
        <translation>Die Sandbox-Laufzeitumgebung ist aus: Sitzungen können ohne Sandbox beginnen (session new), aber nicht gestartet werden</translation>
    </message>
    <message>
        <source>The sandbox runtime is not ready (%1): %2</source>
        <translation>Die Sandbox-Laufzeitumgebung ist nicht bereit (%1): %2</translation>
    </message>
    <message>
        <source>The sandbox runtime went away</source>
        <translation>Die Sandbox-Laufzeitumgebung ist verschwunden</translation>
    </message>
    <message>
        <source>cannot clone %1 into %2: %3</source>
        <translation>%1 kann nicht nach %2 geklont werden: %3</translation>
    </message>
    <message>
        <source>Session %1 runs no agent here</source>
        <translation>Sitzung %1 führt hier keinen Agenten aus</translation>
    </message>
    <message>
        <source>Session %1 has no sandbox (it was started with session new)</source>
        <translation>Sitzung %1 hat keine Sandbox (sie wurde mit session new begonnen)</translation>
    </message>
    <message>
        <source>The sandbox of session %1 is %2: %3</source>
        <translation>Die Sandbox von Sitzung %1 ist %2: %3</translation>
    </message>
    <message>
        <source>No sandbox of session %1 runs here</source>
        <translation>Hier läuft keine Sandbox von Sitzung %1</translation>
    </message>
    <message>
        <source>The sandbox of session %1 is %2</source>
        <translation>Die Sandbox von Sitzung %1 ist %2</translation>
    </message>
    <message>
        <source>No session %1</source>
        <translation>Keine Sitzung %1</translation>
    </message>
    <message>
        <source>Session %1 is not running (its sandbox is %2)</source>
        <translation>Sitzung %1 läuft nicht (ihre Sandbox ist %2)</translation>
    </message>
    <message>
        <source>Suspend</source>
        <translation>Anhalten</translation>
    </message>
    <message>
        <source>Not suspended: the save failed: %1</source>
        <translation>Nicht angehalten: Das Sichern ist fehlgeschlagen: %1</translation>
    </message>
    <message>
        <source>Not finished: the changes cannot be read (%1); finish --discard drops them</source>
        <translation>Nicht beendet: Die Änderungen können nicht gelesen werden (%1); finish --discard verwirft sie</translation>
    </message>
    <message>
        <source>Session %1 has unsaved work (%2 changed file(s), %3 commit(s) not in main): save it first, or finish --discard</source>
        <translation>Sitzung %1 hat ungesicherte Arbeit (%2 geänderte Datei(en), %3 Commit(s) nicht in main): Sichern Sie zuerst, oder finish --discard</translation>
    </message>
    <message>
        <source>Not finished: the sandbox could not be deleted: %1</source>
        <translation>Nicht beendet: Die Sandbox konnte nicht gelöscht werden: %1</translation>
    </message>
    <message>
        <source>the session is gone</source>
        <translation>die Sitzung gibt es nicht mehr</translation>
    </message>
    <message>
        <source>Saved from the sandbox</source>
        <translation>Aus der Sandbox gesichert</translation>
    </message>
    <message>
        <source>nothing to save</source>
        <translation>nichts zu sichern</translation>
    </message>
    <message>
        <source>Not suspended: %1</source>
        <translation>Nicht angehalten: %1</translation>
    </message>
    <message>
        <source>Not suspended: the sandbox could not be deleted: %1</source>
        <translation>Nicht angehalten: Die Sandbox konnte nicht gelöscht werden: %1</translation>
    </message>
    <message>
        <source>Session %1 is not suspended (its sandbox is %2)</source>
        <translation>Sitzung %1 ist nicht angehalten (ihre Sandbox ist %2)</translation>
    </message>
    <message>
        <source>The sandbox runtime is not ready</source>
        <translation>Die Sandbox-Laufzeitumgebung ist nicht bereit</translation>
    </message>
    <message>
        <source>Launch cancelled: the sandbox and the session are removed</source>
        <translation>Start abgebrochen: Sandbox und Sitzung werden entfernt</translation>
    </message>
</context>
<context>
    <name>isolation::SessionsController</name>
    <message>
        <source>The engine is not running</source>
        <translation>Die Engine läuft nicht</translation>
    </message>
</context>
<context>
    <name>isolation::SessionsPage</name>
    <message>
        <source>Opening…</source>
        <translation>Wird geöffnet…</translation>
    </message>
    <message>
        <source>Conflicts</source>
        <translation>Konflikte</translation>
    </message>
    <message>
        <source>Another session saved first</source>
        <translation>Eine andere Sitzung hat zuerst gesichert</translation>
    </message>
    <message>
        <source>Ready</source>
        <translation>Bereit</translation>
    </message>
    <message>
        <source>Saving…</source>
        <translation>Wird gesichert…</translation>
    </message>
    <message>
        <source>Saving: %1</source>
        <translation>Sichern: %1</translation>
    </message>
    <message>
        <source>Syncing…</source>
        <translation>Wird abgeglichen…</translation>
    </message>
    <message>
        <source>Syncing: %1</source>
        <translation>Abgleich: %1</translation>
    </message>
    <message>
        <source>Failed: %1</source>
        <translation>Fehlgeschlagen: %1</translation>
    </message>
    <message>
        <source>Workspace name</source>
        <translation>Name des Arbeitsbereichs</translation>
    </message>
    <message>
        <source>Workspace for a new session</source>
        <translation>Arbeitsbereich für eine neue Sitzung</translation>
    </message>
    <message>
        <source>&amp;New session</source>
        <translation>&amp;Neue Sitzung</translation>
    </message>
    <message>
        <source>Wor&amp;kspace:</source>
        <translation>Arbeitsbe&amp;reich:</translation>
    </message>
    <message>
        <source>Sessions</source>
        <translation>Sitzungen</translation>
    </message>
    <message>
        <source>Workspace</source>
        <translation>Arbeitsbereich</translation>
    </message>
    <message>
        <source>State</source>
        <translation>Zustand</translation>
    </message>
    <message>
        <source>Changed files</source>
        <translation>Geänderte Dateien</translation>
    </message>
    <message>
        <source>Ahead / behind main</source>
        <translation>Vor / hinter main</translation>
    </message>
    <message>
        <source>Last save</source>
        <translation>Letzte Sicherung</translation>
    </message>
    <message>
        <source>Save a&amp;ll</source>
        <translation>Alles s&amp;ichern</translation>
    </message>
    <message>
        <source>S&amp;ync</source>
        <translation>A&amp;bgleichen</translation>
    </message>
    <message>
        <source>Open &amp;folder</source>
        <translation>Ordner ö&amp;ffnen</translation>
    </message>
    <message>
        <source>Starting a session on %1…</source>
        <translation>Sitzung auf %1 wird gestartet…</translation>
    </message>
    <message>
        <source>Session %1 is ready.</source>
        <translation>Sitzung %1 ist bereit.</translation>
    </message>
    <message>
        <source>No session started: %1</source>
        <translation>Keine Sitzung gestartet: %1</translation>
    </message>
    <message>
        <source>Session %1 in %2</source>
        <translation>Sitzung %1 in %2</translation>
    </message>
    <message>
        <source>%1 ahead, %2 behind</source>
        <translation>%1 voraus, %2 dahinter</translation>
    </message>
    <message>
        <source>never</source>
        <translation>nie</translation>
    </message>
    <message>
        <source>Pair this computer first: sessions come from the hub</source>
        <translation>Koppeln Sie zuerst diesen Computer: Sitzungen kommen vom Hub</translation>
    </message>
    <message>
        <source>Choose a session first</source>
        <translation>Wählen Sie zuerst eine Sitzung</translation>
    </message>
    <message>
        <source>The session is busy: %1</source>
        <translation>Die Sitzung ist beschäftigt: %1</translation>
    </message>
    <message>
        <source>Pair this computer first: saving and syncing need the hub</source>
        <translation>Koppeln Sie zuerst diesen Computer: Sichern und Abgleichen brauchen den Hub</translation>
    </message>
    <message>
        <source>%1 %2 of %3</source>
        <translation>%1 %2 von %3</translation>
    </message>
    <message>
        <source>%1 %2</source>
        <translation>%1 %2</translation>
    </message>
    <message>
        <source>Starting</source>
        <translation>Startet</translation>
    </message>
    <message>
        <source>Running</source>
        <translation>Läuft</translation>
    </message>
    <message>
        <source>Suspending</source>
        <translation>Wird angehalten</translation>
    </message>
    <message>
        <source>Suspended</source>
        <translation>Angehalten</translation>
    </message>
    <message>
        <source>Resuming</source>
        <translation>Wird fortgesetzt</translation>
    </message>
    <message>
        <source>Finishing</source>
        <translation>Wird beendet</translation>
    </message>
    <message>
        <source>Gone</source>
        <translation>Nicht mehr vorhanden</translation>
    </message>
    <message>
        <source>Failed</source>
        <translation>Fehlgeschlagen</translation>
    </message>
    <message>
        <source>agent not started</source>
        <translation>Agent nicht gestartet</translation>
    </message>
    <message>
        <source>agent running</source>
        <translation>Agent läuft</translation>
    </message>
    <message>
        <source>agent restarting</source>
        <translation>Agent startet neu</translation>
    </message>
    <message>
        <source>agent stopped</source>
        <translation>Agent gestoppt</translation>
    </message>
    <message>
        <source>agent done</source>
        <translation>Agent fertig</translation>
    </message>
    <message>
        <source>agent failed</source>
        <translation>Agent fehlgeschlagen</translation>
    </message>
    <message>
        <source>agent</source>
        <translation>Agent</translation>
    </message>
    <message numerus="yes">
        <source>%1, %n restart(s)</source>
        <translation>
            <numerusform>%1, %n Neustart</numerusform>
            <numerusform>%1, %n Neustarts</numerusform>
        </translation>
    </message>
    <message>
        <source>%1 · %2</source>
        <translation>%1 · %2</translation>
    </message>
    <message>
        <source>Sandbox</source>
        <translation>Sandbox</translation>
    </message>
    <message>
        <source>S&amp;uspend</source>
        <translation>A&amp;nhalten</translation>
    </message>
    <message>
        <source>Saves what changed, then pauses the session&apos;s sandbox</source>
        <translation>Sichert, was sich geändert hat, und hält dann die Sandbox der Sitzung an</translation>
    </message>
    <message>
        <source>Resu&amp;me</source>
        <translation>Fortset&amp;zen</translation>
    </message>
    <message>
        <source>F&amp;inish…</source>
        <translation>B&amp;eenden…</translation>
    </message>
    <message>
        <source>Deletes the session&apos;s sandbox and removes its folder from this computer</source>
        <translation>Löscht die Sandbox der Sitzung und entfernt ihren Ordner von diesem Computer</translation>
    </message>
    <message>
        <source>Suspending %1: saving what changed, then pausing its sandbox…</source>
        <translation>%1 wird angehalten: Änderungen werden gesichert, dann wird die Sandbox angehalten…</translation>
    </message>
    <message>
        <source>Resuming %1…</source>
        <translation>%1 wird fortgesetzt…</translation>
    </message>
    <message>
        <source>Only a running sandbox can be suspended</source>
        <translation>Nur eine laufende Sandbox kann angehalten werden</translation>
    </message>
    <message>
        <source>Only a suspended sandbox can be resumed</source>
        <translation>Nur eine angehaltene Sandbox kann fortgesetzt werden</translation>
    </message>
    <message>
        <source>Opening: %1</source>
        <translation>Öffnen: %1</translation>
    </message>
    <message>
        <source>&amp;Cancel</source>
        <translation>&amp;Abbrechen</translation>
    </message>
    <message>
        <source>Cancelling…</source>
        <translation>Wird abgebrochen…</translation>
    </message>
    <message>
        <source>Stop it: the new session is removed</source>
        <translation>Anhalten: die neue Sitzung wird entfernt</translation>
    </message>
    <message>
        <source>It cannot be stopped now: wait for it to end</source>
        <translation>Das lässt sich jetzt nicht anhalten: warten Sie, bis es endet</translation>
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
    <message>
        <source>Colour</source>
        <translation>Farbig</translation>
    </message>
    <message>
        <source>Monochrome, for light panels</source>
        <translation>Einfarbig, für helle Leisten</translation>
    </message>
    <message>
        <source>Monochrome, for dark panels</source>
        <translation>Einfarbig, für dunkle Leisten</translation>
    </message>
    <message>
        <source>Tray &amp;icon:</source>
        <translation>&amp;Symbol:</translation>
    </message>
    <message>
        <source>Another session saved first</source>
        <translation>Eine andere Sitzung hat zuerst gesichert</translation>
    </message>
    <message>
        <source>A sync conflicts</source>
        <translation>Ein Abgleich Konflikte hat</translation>
    </message>
    <message>
        <source>This computer is unpaired</source>
        <translation>Dieser Computer entkoppelt wird</translation>
    </message>
    <message>
        <source>The runtime stops working</source>
        <translation>Die Laufzeitumgebung nicht mehr funktioniert</translation>
    </message>
    <message>
        <source>Notify me when:</source>
        <translation>Benachrichtigen, wenn:</translation>
    </message>
    <message>
        <source>Start the &amp;engine at login</source>
        <translation>&amp;Engine bei der Anmeldung starten</translation>
    </message>
    <message>
        <source>Show the &amp;tray at login</source>
        <translation>&amp;Tray bei der Anmeldung anzeigen</translation>
    </message>
    <message>
        <source>At login:</source>
        <translation>Bei der Anmeldung:</translation>
    </message>
    <message>
        <source>Looking up how this desktop starts programs at login…</source>
        <translation>Es wird ermittelt, wie diese Arbeitsumgebung Programme bei der Anmeldung startet …</translation>
    </message>
    <message>
        <source>Through the systemd user unit isolation-server.service, so the engine runs without a desktop too.</source>
        <translation>Über die systemd-Benutzereinheit isolation-server.service, sodass die Engine auch ohne Arbeitsumgebung läuft.</translation>
    </message>
    <message>
        <source>Through an autostart entry of this desktop (%1).</source>
        <translation>Über einen Autostart-Eintrag dieser Arbeitsumgebung (%1).</translation>
    </message>
</context>
<context>
    <name>isolation::SingleInstance</name>
    <message>
        <source>another tray is running (%1)</source>
        <translation>eine andere Tray-Anwendung läuft bereits (%1)</translation>
    </message>
    <message>
        <source>cannot listen on %1: %2</source>
        <translation>kann nicht auf %1 lauschen: %2</translation>
    </message>
</context>
<context>
    <name>isolation::SyncFlow</name>
    <message>
        <source>This computer is not paired: pair it to sync with the hub</source>
        <translation>Dieser Computer ist nicht gekoppelt: Koppeln Sie ihn, um mit dem Hub abzugleichen</translation>
    </message>
    <message>
        <source>This computer is not paired</source>
        <translation>Dieser Computer ist nicht gekoppelt</translation>
    </message>
    <message numerus="yes">
        <source>%n file(s) conflict with main; nothing was changed (sync --resolve leaves git&apos;s markers in the files)</source>
        <translation>
            <numerusform>%n Datei steht im Konflikt mit main; nichts wurde geändert (sync --resolve lässt die Markierungen von git in den Dateien)</numerusform>
            <numerusform>%n Dateien stehen im Konflikt mit main; nichts wurde geändert (sync --resolve lässt die Markierungen von git in den Dateien)</numerusform>
        </translation>
    </message>
    <message>
        <source>Sync cancelled: the session&apos;s branch and files are as they were</source>
        <translation>Abgleich abgebrochen: Zweig und Dateien der Sitzung sind unverändert</translation>
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
    <message>
        <source>S&amp;essions</source>
        <translation>S&amp;itzungen</translation>
    </message>
    <message>
        <source>Files in conflict: open Conflicts to resolve them</source>
        <translation>Dateien im Konflikt: Öffnen Sie Konflikte, um sie zu lösen</translation>
    </message>
    <message>
        <source>Another session saved first: sync, then save again</source>
        <translation>Eine andere Sitzung hat zuerst gesichert: abgleichen, dann erneut sichern</translation>
    </message>
    <message>
        <source>Saving or syncing</source>
        <translation>Sichern oder Abgleichen läuft</translation>
    </message>
    <message>
        <source>Another session saved first</source>
        <translation>Eine andere Sitzung hat zuerst gesichert</translation>
    </message>
    <message>
        <source>%1: nothing of your save reached the hub; your work is kept in the session. Sync, then save again.</source>
        <translation>%1: Nichts von Ihrer Sicherung hat den Hub erreicht; Ihre Arbeit bleibt in der Sitzung. Abgleichen, dann erneut sichern.</translation>
    </message>
    <message>
        <source>Open</source>
        <translation>Öffnen</translation>
    </message>
    <message>
        <source>Sync now</source>
        <translation>Jetzt abgleichen</translation>
    </message>
    <message numerus="yes">
        <source>%n file(s) in conflict</source>
        <translation>
            <numerusform>%n Datei im Konflikt</numerusform>
            <numerusform>%n Dateien im Konflikt</numerusform>
        </translation>
    </message>
    <message>
        <source>%1: %2</source>
        <translation>%1: %2</translation>
    </message>
    <message>
        <source>%1 — %2</source>
        <translation>%1 — %2</translation>
    </message>
    <message>
        <source>&amp;Open</source>
        <translation>Ö&amp;ffnen</translation>
    </message>
    <message>
        <source>Save &amp;all</source>
        <translation>&amp;Alles sichern</translation>
    </message>
    <message>
        <source>S&amp;ync</source>
        <translation>A&amp;bgleichen</translation>
    </message>
    <message>
        <source>Pause &amp;notifications for an hour</source>
        <translation>Benachrichtigungen eine Stunde &amp;pausieren</translation>
    </message>
    <message>
        <source>The sandbox runtime stopped working</source>
        <translation>Die Sandbox-Laufzeitumgebung funktioniert nicht mehr</translation>
    </message>
    <message>
        <source>S&amp;uspend</source>
        <translation>A&amp;nhalten</translation>
    </message>
    <message>
        <source>&amp;Resume</source>
        <translation>Fort&amp;setzen</translation>
    </message>
    <message>
        <source>&amp;Finish…</source>
        <translation>B&amp;eenden…</translation>
    </message>
    <message>
        <source>&amp;Disconnect</source>
        <translation>&amp;Trennen</translation>
    </message>
    <message>
        <source>S&amp;tart the engine</source>
        <translation>Engine s&amp;tarten</translation>
    </message>
    <message>
        <source>&amp;Quit Isolation tray</source>
        <translation>Isolation-Tray &amp;beenden</translation>
    </message>
    <message>
        <source>Closes the tray; the engine keeps this computer reachable</source>
        <translation>Schließt das Tray; die Engine hält diesen Computer erreichbar</translation>
    </message>
    <message>
        <source>The Isolation engine stopped</source>
        <translation>Die Isolation-Engine wurde gestoppt</translation>
    </message>
    <message>
        <source>The cloud cannot reach this computer until it runs again. %1</source>
        <translation>Die Cloud erreicht diesen Computer erst, wenn sie wieder läuft. %1</translation>
    </message>
    <message>
        <source>Start it</source>
        <translation>Starten</translation>
    </message>
    <message>
        <source>Stop the engine</source>
        <translation>Engine stoppen</translation>
    </message>
    <message>
        <source>Stop the Isolation engine? The cloud cannot reach this computer, and no session can be launched on it, until the engine starts again (from this menu, or at the next login).</source>
        <translation>Die Isolation-Engine stoppen? Die Cloud erreicht diesen Computer nicht, und keine Sitzung kann auf ihm gestartet werden, bis die Engine wieder startet (aus diesem Menü oder bei der nächsten Anmeldung).</translation>
    </message>
    <message>
        <source>&amp;Stop the engine</source>
        <translation>Engine &amp;stoppen</translation>
    </message>
    <message>
        <source>Isolation</source>
        <translation>Isolation</translation>
    </message>
    <message>
        <source>&amp;Connect</source>
        <translation>&amp;Verbinden</translation>
    </message>
    <message>
        <source>Stop the en&amp;gine…</source>
        <translation>Engine st&amp;oppen…</translation>
    </message>
    <message>
        <source>Error: %1</source>
        <translation>Fehler: %1</translation>
    </message>
    <message>
        <source>Warning: %1</source>
        <translation>Warnung: %1</translation>
    </message>
    <message>
        <source>Starting the engine (systemd user unit)</source>
        <translation>Die Engine wird gestartet (systemd-Benutzer-Unit)</translation>
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
    <message>
        <source>the hub broke the WebSocket protocol: %1</source>
        <translation>der Hub hat das WebSocket-Protokoll verletzt: %1</translation>
    </message>
</context>
<context>
    <name>isolation::WebSocketConnector</name>
    <message>
        <source>a WebSocket URL must be wss://, or ws:// to a loopback address: %1</source>
        <translation>eine WebSocket-URL muss wss:// sein, oder ws:// zu einer Loopback-Adresse: %1</translation>
    </message>
    <message>
        <source>the connection closed during the WebSocket handshake</source>
        <translation>die Verbindung wurde während des WebSocket-Handshakes geschlossen</translation>
    </message>
    <message>
        <source>the answer to the WebSocket handshake was HTTP %1</source>
        <translation>die Antwort auf den WebSocket-Handshake war HTTP %1</translation>
    </message>
    <message>
        <source> (through the proxy %1:%2)</source>
        <translation> (über den Proxy %1:%2)</translation>
    </message>
</context>
<context>
    <name>isolation::WebSocketLink</name>
    <message>
        <source>the peer sent a text message (only binary ones are taken)</source>
        <translation>die Gegenseite hat eine Textnachricht gesendet (nur binäre werden angenommen)</translation>
    </message>
    <message>
        <source>the connection was lost</source>
        <translation>die Verbindung ist abgebrochen</translation>
    </message>
    <message>
        <source>WebSocket protocol error: %1</source>
        <translation>WebSocket-Protokollfehler: %1</translation>
    </message>
</context>
<context>
    <name>isolation::WorkspaceExport</name>
    <message>
        <source>Workspace %1 has nothing saved yet</source>
        <translation>Arbeitsbereich %1 hat noch nichts gesichert</translation>
    </message>
    <message>
        <source>cannot write %1: %2</source>
        <translation>%1 kann nicht geschrieben werden: %2</translation>
    </message>
    <message>
        <source>Export cancelled: no file was written</source>
        <translation>Export abgebrochen: keine Datei wurde geschrieben</translation>
    </message>
</context>
</TS>
