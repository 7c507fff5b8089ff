<?xml version="1.0" encoding="utf-8"?>
<!DOCTYPE TS>
<TS version="2.1" language="en_US">
<context>
    <name>SessionActivity</name>
    <message numerus="yes">
        <source>Synced %1 of %2 %3: %n file(s) left with conflict markers</source>
        <translation>
            <numerusform>Synced %1 of %2 %3: %n file left with conflict markers</numerusform>
            <numerusform>Synced %1 of %2 %3: %n files left with conflict markers</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>Sync of %1 of %2 %3 stopped: %n file(s) in conflict, nothing changed</source>
        <translation>
            <numerusform>Sync of %1 of %2 %3 stopped: %n file in conflict, nothing changed</numerusform>
            <numerusform>Sync of %1 of %2 %3 stopped: %n files in conflict, nothing changed</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>isolation::Autostart</name>
    <message numerus="yes">
        <source>%1 did not answer within %n second(s)</source>
        <translation>
            <numerusform>%1 did not answer within %n second</numerusform>
            <numerusform>%1 did not answer within %n seconds</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>isolation::CachePage</name>
    <message numerus="yes">
        <source>%n workspace(s), %1 of at most %2</source>
        <translation>
            <numerusform>%n workspace, %1 of at most %2</numerusform>
            <numerusform>%n workspaces, %1 of at most %2</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>Cleared, except %n workspace(s) in use now.</source>
        <translation>
            <numerusform>Cleared, except %n workspace in use now.</numerusform>
            <numerusform>Cleared, except %n workspaces in use now.</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>isolation::ChangesPage</name>
    <message numerus="yes">
        <source>Saving %n file(s)…</source>
        <translation>
            <numerusform>Saving %n file…</numerusform>
            <numerusform>Saving %n files…</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>isolation::ConflictsPage</name>
    <message numerus="yes">
        <source>%n file(s) conflict with the workspace&apos;s newest save. Nothing was changed: &quot;Sync and leave markers&quot; merges it in and marks the conflicting regions in the files.</source>
        <translation>
            <numerusform>%n file conflicts with the workspace&apos;s newest save. Nothing was changed: &quot;Sync and leave markers&quot; merges it in and marks the conflicting regions in the file.</numerusform>
            <numerusform>%n files conflict with the workspace&apos;s newest save. Nothing was changed: &quot;Sync and leave markers&quot; merges it in and marks the conflicting regions in the files.</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>isolation::SessionManager</name>
    <message numerus="yes">
        <source>%n workspaces are named %1: give the id</source>
        <translation>
            <numerusform>%n workspace is named %1: give the id</numerusform>
            <numerusform>%n workspaces are named %1: give the id</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>isolation::SessionsPage</name>
    <message numerus="yes">
        <source>%1, %n restart(s)</source>
        <translation>
            <numerusform>%1, %n restart</numerusform>
            <numerusform>%1, %n restarts</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>isolation::SyncFlow</name>
    <message numerus="yes">
        <source>%n file(s) conflict with main; nothing was changed (sync --resolve leaves git&apos;s markers in the files)</source>
        <translation>
            <numerusform>%n file conflicts with main; nothing was changed (sync --resolve leaves git&apos;s markers in the file)</numerusform>
            <numerusform>%n files conflict with main; nothing was changed (sync --resolve leaves git&apos;s markers in the files)</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>isolation::TrayApplication</name>
    <message numerus="yes">
        <source>%n file(s) in conflict</source>
        <translation>
            <numerusform>%n file in conflict</numerusform>
            <numerusform>%n files in conflict</numerusform>
        </translation>
    </message>
</context>
</TS>
