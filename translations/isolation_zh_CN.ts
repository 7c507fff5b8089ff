<?xml version="1.0" encoding="utf-8"?>
<!DOCTYPE TS>
<TS version="2.1" language="zh_CN">
<context>
    <name>HubUrl</name>
    <message>
        <source>the hub URL is not valid: %1 (give one like https://hub.example.com)</source>
        <translation>中心 URL 无效：%1（请提供类似 https://hub.example.com 的地址）</translation>
    </message>
    <message>
        <source>refusing hub %1: a hub URL carries no user name or password</source>
        <translation>拒绝中心 %1：中心 URL 不能包含用户名或密码</translation>
    </message>
    <message>
        <source>refusing hub %1: a hub URL is https:// (or http:// on this computer: 127.0.0.1, ::1, localhost)</source>
        <translation>拒绝中心 %1：中心 URL 必须是 https://（或本机上的 http://：127.0.0.1、::1、localhost）</translation>
    </message>
    <message>
        <source>refusing hub %1: a hub must be https:// or on this computer (127.0.0.1, ::1, localhost); use %2</source>
        <translation>拒绝中心 %1：中心必须使用 https:// 或位于本机（127.0.0.1、::1、localhost）；请使用 %2</translation>
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
        <translation>无法启动托盘程序：%1</translation>
    </message>
</context>
<context>
    <name>SessionActivity</name>
    <message>
        <source>from the tray</source>
        <translation>（来自托盘）</translation>
    </message>
    <message>
        <source>from the command line</source>
        <translation>（来自命令行）</translation>
    </message>
    <message>
        <source>from the cloud</source>
        <translation>（来自云端）</translation>
    </message>
    <message>
        <source>from the sandbox&apos;s agent</source>
        <translation>（来自沙箱中的代理）</translation>
    </message>
    <message>
        <source>Saved %1 of %2 %3: %4 uploaded</source>
        <translation>已保存 %2 的 %1 %3：已上传 %4</translation>
    </message>
    <message>
        <source>Nothing to save in %1 of %2 %3</source>
        <translation>%2 的 %1 没有可保存的内容 %3</translation>
    </message>
    <message>
        <source>Save of %1 of %2 %3 not published: another session saved first (sync, then save again)</source>
        <translation>%2 的 %1 的保存 %3 未发布：另一个会话先保存了（请先同步，再保存）</translation>
    </message>
    <message>
        <source>Save of %1 of %2 %3 failed: %4</source>
        <translation>%2 的 %1 的保存 %3 失败：%4</translation>
    </message>
    <message>
        <source>Synced %1 of %2 %3 (%4)</source>
        <translation>已同步 %2 的 %1 %3（%4）</translation>
    </message>
    <message numerus="yes">
        <source>Synced %1 of %2 %3: %n file(s) left with conflict markers</source>
        <translation>
            <numerusform>已同步 %2 的 %1 %3：%n 个文件留有冲突标记</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>Sync of %1 of %2 %3 stopped: %n file(s) in conflict, nothing changed</source>
        <translation>
            <numerusform>%2 的 %1 的同步 %3 已停止：%n 个文件冲突，未做任何更改</numerusform>
        </translation>
    </message>
    <message>
        <source>Sync of %1 of %2 %3 failed: %4</source>
        <translation>%2 的 %1 的同步 %3 失败：%4</translation>
    </message>
    <message>
        <source>New session %1 of %2 %3</source>
        <translation>%2 的新会话 %1 %3</translation>
    </message>
    <message>
        <source>Launched session %1 of %2 in a sandbox %3</source>
        <translation>已在沙箱中启动 %2 的会话 %1 %3</translation>
    </message>
    <message>
        <source>Suspended session %1 of %2 %3</source>
        <translation>已挂起 %2 的会话 %1 %3</translation>
    </message>
    <message>
        <source>Resumed session %1 of %2 %3</source>
        <translation>已恢复 %2 的会话 %1 %3</translation>
    </message>
    <message>
        <source>Finished session %1 of %2 %3</source>
        <translation>已结束 %2 的会话 %1 %3</translation>
    </message>
</context>
<context>
    <name>isolation::ActivityLog</name>
    <message>
        <source>Cannot keep the activity log in %1: %2</source>
        <translation>无法在 %1 中保存活动日志：%2</translation>
    </message>
</context>
<context>
    <name>isolation::ActivityModel</name>
    <message>
        <source>Time</source>
        <translation>时间</translation>
    </message>
    <message>
        <source>Kind</source>
        <translation>类型</translation>
    </message>
    <message>
        <source>Event</source>
        <translation>事件</translation>
    </message>
    <message>
        <source>Connection</source>
        <translation>连接</translation>
    </message>
    <message>
        <source>Pairing</source>
        <translation>配对</translation>
    </message>
    <message>
        <source>Runtime</source>
        <translation>运行时</translation>
    </message>
    <message>
        <source>Session</source>
        <translation>会话</translation>
    </message>
    <message>
        <source>Save</source>
        <translation>保存</translation>
    </message>
    <message>
        <source>Sync</source>
        <translation>同步</translation>
    </message>
</context>
<context>
    <name>isolation::ActivityPage</name>
    <message>
        <source>Kind of event</source>
        <translation>事件类型</translation>
    </message>
    <message>
        <source>All events</source>
        <translation>所有事件</translation>
    </message>
    <message>
        <source>Search events</source>
        <translation>搜索事件</translation>
    </message>
    <message>
        <source>S&amp;how:</source>
        <translation>显示(&amp;H)：</translation>
    </message>
    <message>
        <source>Recent events</source>
        <translation>最近的事件</translation>
    </message>
</context>
<context>
    <name>isolation::Autostart</name>
    <message>
        <source>Cannot create the folder %1</source>
        <translation>无法创建文件夹 %1</translation>
    </message>
    <message>
        <source>Cannot write %1: %2</source>
        <translation>无法写入 %1：%2</translation>
    </message>
    <message>
        <source>Cannot remove %1</source>
        <translation>无法删除 %1</translation>
    </message>
    <message>
        <source>systemctl --user %1 %2 failed: %3</source>
        <translation>systemctl --user %1 %2 失败：%3</translation>
    </message>
    <message>
        <source>Cannot find isolation-server beside this program or on PATH</source>
        <translation>在本程序所在目录和 PATH 中都找不到 isolation-server</translation>
    </message>
    <message>
        <source>Cannot find isolation-tray beside this program or on PATH</source>
        <translation>在本程序所在目录和 PATH 中都找不到 isolation-tray</translation>
    </message>
    <message>
        <source>%1 exited with code %2</source>
        <translation>%1 已退出，代码 %2</translation>
    </message>
    <message>
        <source>%1 crashed</source>
        <translation>%1 已崩溃</translation>
    </message>
    <message>
        <source>Cannot run %1: %2</source>
        <translation>无法运行 %1：%2</translation>
    </message>
    <message numerus="yes">
        <source>%1 did not answer within %n second(s)</source>
        <translation>
            <numerusform>%1 在 %n 秒内没有响应</numerusform>
        </translation>
    </message>
    <message>
        <source>no systemd user unit for the engine here</source>
        <translation>此计算机上没有引擎的 systemd 用户单元</translation>
    </message>
    <message>
        <source>systemctl --user start %1 failed: %2</source>
        <translation>systemctl --user start %1 失败：%2</translation>
    </message>
</context>
<context>
    <name>isolation::CachePage</name>
    <message>
        <source>A local copy of each workspace you worked on, so new sessions start without downloading everything again. Deleting it loses nothing: the hub has every save.</source>
        <translation>您使用过的每个工作区的本地副本，让新会话无需重新下载全部内容即可启动。删除它不会丢失任何东西：中心保存了每一次保存。</translation>
    </message>
    <message>
        <source>Cached workspaces</source>
        <translation>已缓存的工作区</translation>
    </message>
    <message>
        <source>Workspace</source>
        <translation>工作区</translation>
    </message>
    <message>
        <source>Size</source>
        <translation>大小</translation>
    </message>
    <message>
        <source>Last used</source>
        <translation>上次使用</translation>
    </message>
    <message>
        <source>In use</source>
        <translation>使用中</translation>
    </message>
    <message>
        <source>&amp;Evict</source>
        <translation>清除(&amp;E)</translation>
    </message>
    <message>
        <source>C&amp;lear all</source>
        <translation>全部清除(&amp;L)</translation>
    </message>
    <message>
        <source>Re&amp;fresh</source>
        <translation>刷新(&amp;F)</translation>
    </message>
    <message>
        <source>The engine is not running.</source>
        <translation>引擎未运行。</translation>
    </message>
    <message>
        <source>yes</source>
        <translation>是</translation>
    </message>
    <message>
        <source>no</source>
        <translation>否</translation>
    </message>
    <message numerus="yes">
        <source>%n workspace(s), %1 of at most %2</source>
        <translation>
            <numerusform>%n 个工作区，%1，上限 %2</numerusform>
        </translation>
    </message>
    <message>
        <source>Choose a workspace that no session is using now</source>
        <translation>请选择当前没有会话在使用的工作区</translation>
    </message>
    <message>
        <source>Evicted %1.</source>
        <translation>已清除 %1。</translation>
    </message>
    <message>
        <source>%1 was not evicted: %2</source>
        <translation>未能清除 %1：%2</translation>
    </message>
    <message>
        <source>The cache is empty.</source>
        <translation>缓存为空。</translation>
    </message>
    <message numerus="yes">
        <source>Cleared, except %n workspace(s) in use now.</source>
        <translation>
            <numerusform>已清除，但有 %n 个正在使用的工作区除外。</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>isolation::ChangesPage</name>
    <message>
        <source>added</source>
        <translation>已添加</translation>
    </message>
    <message>
        <source>modified</source>
        <translation>已修改</translation>
    </message>
    <message>
        <source>deleted</source>
        <translation>已删除</translation>
    </message>
    <message>
        <source>renamed</source>
        <translation>已重命名</translation>
    </message>
    <message>
        <source>type changed</source>
        <translation>类型已更改</translation>
    </message>
    <message>
        <source>in conflict</source>
        <translation>有冲突</translation>
    </message>
    <message>
        <source>new</source>
        <translation>新文件</translation>
    </message>
    <message>
        <source>Sess&amp;ion:</source>
        <translation>会话(&amp;I)：</translation>
    </message>
    <message>
        <source>Re&amp;fresh</source>
        <translation>刷新(&amp;F)</translation>
    </message>
    <message>
        <source>Look at the files again and ask the hub whether the workspace moved on</source>
        <translation>重新检查文件，并询问中心工作区是否有新的保存</translation>
    </message>
    <message>
        <source>Changed files</source>
        <translation>已更改的文件</translation>
    </message>
    <message>
        <source>File</source>
        <translation>文件</translation>
    </message>
    <message>
        <source>Status</source>
        <translation>状态</translation>
    </message>
    <message>
        <source>Diff of the chosen file</source>
        <translation>所选文件的差异</translation>
    </message>
    <message>
        <source>What changed (optional)</source>
        <translation>更改说明（可选）</translation>
    </message>
    <message>
        <source>&amp;Message:</source>
        <translation>说明(&amp;M)：</translation>
    </message>
    <message>
        <source>Save s&amp;elected</source>
        <translation>保存所选(&amp;E)</translation>
    </message>
    <message>
        <source>Save a&amp;ll</source>
        <translation>全部保存(&amp;L)</translation>
    </message>
    <message>
        <source>Saved.</source>
        <translation>已保存。</translation>
    </message>
    <message>
        <source>Nothing to save.</source>
        <translation>没有需要保存的内容。</translation>
    </message>
    <message>
        <source>Another session saved first. Your work is kept here: sync, then save again.</source>
        <translation>另一个会话先保存了。您的工作保留在这里：请先同步，再重新保存。</translation>
    </message>
    <message>
        <source>%1 (from %2)</source>
        <translation>%1（来自 %2）</translation>
    </message>
    <message>
        <source>No session: start one on the Sessions tab.</source>
        <translation>没有会话：请在&quot;会话&quot;标签页中启动一个。</translation>
    </message>
    <message>
        <source>Looking at the files…</source>
        <translation>正在检查文件…</translation>
    </message>
    <message>
        <source>%1 changed files; %2 commits ahead of main, %3 behind%4</source>
        <translation>%1 个已更改的文件；领先 main %2 个提交，落后 %3 个%4</translation>
    </message>
    <message>
        <source>; a merge is in progress (save completes it)</source>
        <translation>；合并正在进行中（保存即可完成）</translation>
    </message>
    <message>
        <source>Choose a session first</source>
        <translation>请先选择一个会话</translation>
    </message>
    <message>
        <source>The session is busy: %1</source>
        <translation>会话正忙：%1</translation>
    </message>
    <message>
        <source>Pair this computer first: saving needs the hub</source>
        <translation>请先配对此计算机：保存需要中心</translation>
    </message>
    <message>
        <source>Nothing to save: no file changed</source>
        <translation>没有需要保存的内容：没有文件更改</translation>
    </message>
    <message>
        <source>Tick the files to save</source>
        <translation>请勾选要保存的文件</translation>
    </message>
    <message>
        <source>Save s&amp;elected (%1)</source>
        <translation>保存所选(&amp;E)（%1）</translation>
    </message>
    <message>
        <source>Reading %1…</source>
        <translation>正在读取 %1…</translation>
    </message>
    <message>
        <source>No diff of %1: %2</source>
        <translation>无法显示 %1 的差异：%2</translation>
    </message>
    <message>
        <source>%1 is a binary file.</source>
        <translation>%1 是二进制文件。</translation>
    </message>
    <message>
        <source>(the diff goes on; only its start is shown)</source>
        <translation>（差异较长，仅显示开头部分）</translation>
    </message>
    <message numerus="yes">
        <source>Saving %n file(s)…</source>
        <translation>
            <numerusform>正在保存 %n 个文件…</numerusform>
        </translation>
    </message>
    <message>
        <source>Saving every change…</source>
        <translation>正在保存所有更改…</translation>
    </message>
    <message>
        <source>, %1/s</source>
        <translation>，%1/秒</translation>
    </message>
    <message>
        <source>, %1 left</source>
        <translation>，剩余 %1</translation>
    </message>
    <message>
        <source>Ca&amp;ncel</source>
        <translation>取消(&amp;N)</translation>
    </message>
    <message>
        <source>Cancelling…</source>
        <translation>正在取消…</translation>
    </message>
    <message>
        <source>Stopping at the next safe point; what was done is undone</source>
        <translation>将在下一个安全点停止；已完成的部分会被撤销</translation>
    </message>
    <message>
        <source>Stop it: nothing is published, and your work stays on the session</source>
        <translation>停止：不会发布任何内容，您的工作保留在会话中</translation>
    </message>
    <message>
        <source>It cannot be stopped now: wait for it to end</source>
        <translation>现在无法停止：请等待它结束</translation>
    </message>
    <message>
        <source>Stop it: the new session is removed</source>
        <translation>停止：新会话将被移除</translation>
    </message>
</context>
<context>
    <name>isolation::ConflictsPage</name>
    <message>
        <source>Sess&amp;ion:</source>
        <translation>会话(&amp;I)：</translation>
    </message>
    <message>
        <source>Files in conflict</source>
        <translation>有冲突的文件</translation>
    </message>
    <message>
        <source>File</source>
        <translation>文件</translation>
    </message>
    <message>
        <source>Conflict regions</source>
        <translation>冲突区域</translation>
    </message>
    <message>
        <source>State</source>
        <translation>状态</translation>
    </message>
    <message>
        <source>Open in &amp;editor</source>
        <translation>在编辑器中打开(&amp;E)</translation>
    </message>
    <message>
        <source>Sync and leave &amp;markers</source>
        <translation>同步并保留标记(&amp;M)</translation>
    </message>
    <message>
        <source>Merge the workspace&apos;s newest save into this session, leaving git&apos;s conflict markers in the files for you to edit</source>
        <translation>将工作区的最新保存合并到此会话，并在文件中保留 git 的冲突标记供您编辑</translation>
    </message>
    <message>
        <source>Save to &amp;finish</source>
        <translation>保存以完成(&amp;F)</translation>
    </message>
    <message>
        <source>Saves the session: completes the merge once no markers are left</source>
        <translation>保存会话：当不再有冲突标记时完成合并</translation>
    </message>
    <message>
        <source>%1 of %2 left</source>
        <translation>剩余 %1 / %2</translation>
    </message>
    <message>
        <source>not merged yet</source>
        <translation>尚未合并</translation>
    </message>
    <message>
        <source>resolved</source>
        <translation>已解决</translation>
    </message>
    <message>
        <source>markers in the file</source>
        <translation>文件中有标记</translation>
    </message>
    <message>
        <source>No conflicts.</source>
        <translation>没有冲突。</translation>
    </message>
    <message numerus="yes">
        <source>%n file(s) conflict with the workspace&apos;s newest save. Nothing was changed: &quot;Sync and leave markers&quot; merges it in and marks the conflicting regions in the files.</source>
        <translation>
            <numerusform>%n 个文件与工作区的最新保存冲突。没有做任何更改：“同步并保留标记”会将其合并进来，并在文件中标出冲突区域。</numerusform>
        </translation>
    </message>
    <message>
        <source>%1 of %2 files resolved. Edit the files to remove the conflict markers, then save to finish the merge.</source>
        <translation>已解决 %1 / %2 个文件。请编辑文件删除冲突标记，然后保存以完成合并。</translation>
    </message>
    <message>
        <source>Sync and leave markers first, then choose a file</source>
        <translation>请先同步并保留标记，然后选择一个文件</translation>
    </message>
    <message>
        <source>Every file must be free of conflict markers first</source>
        <translation>每个文件都必须先去除冲突标记</translation>
    </message>
    <message>
        <source>%1 — %2</source>
        <translation>%1 — %2</translation>
    </message>
    <message>
        <source>No conflicts in this session. Files are in conflict in: %1</source>
        <translation>此会话没有冲突。有冲突文件的会话：%1</translation>
    </message>
</context>
<context>
    <name>isolation::Engine</name>
    <message>
        <source>Not running</source>
        <translation>未运行</translation>
    </message>
    <message>
        <source>Starting: reading this computer&apos;s credentials</source>
        <translation>正在启动：读取此计算机的凭据</translation>
    </message>
    <message>
        <source>The engine is not running</source>
        <translation>引擎未运行</translation>
    </message>
    <message>
        <source>The runtime is switched off (ISOLATION_RUNTIME=off or runtime/enabled=false)</source>
        <translation>运行时已关闭（ISOLATION_RUNTIME=off 或 runtime/enabled=false）</translation>
    </message>
    <message>
        <source>the engine is not running</source>
        <translation>引擎未运行</translation>
    </message>
    <message>
        <source>Not paired: this computer was unpaired from Isolation (its credential was revoked). Pair it again to reconnect</source>
        <translation>未配对：此计算机已从 Isolation 解除配对（其凭据已被撤销）。请重新配对以恢复连接</translation>
    </message>
    <message>
        <source>Not paired: the hub no longer knows this computer (%1). Pair it again</source>
        <translation>未配对：中心已不再识别此计算机（%1）。请重新配对</translation>
    </message>
    <message>
        <source>Online: paired with %1 as %2</source>
        <translation>在线：已作为 %2 与 %1 配对</translation>
    </message>
    <message>
        <source>Online: connected to %1</source>
        <translation>在线：已连接到 %1</translation>
    </message>
    <message>
        <source>Cannot connect to %1: %2</source>
        <translation>无法连接到 %1：%2</translation>
    </message>
    <message>
        <source>Reconnecting to %1: %2</source>
        <translation>正在重新连接到 %1：%2</translation>
    </message>
    <message>
        <source>connecting</source>
        <translation>正在连接</translation>
    </message>
    <message>
        <source>Pairing: approve the code shown for this computer</source>
        <translation>配对中：请批准为此计算机显示的代码</translation>
    </message>
    <message>
        <source>Not paired</source>
        <translation>未配对</translation>
    </message>
    <message>
        <source>Not paired: pair this computer with Isolation to start working</source>
        <translation>未配对：将此计算机与 Isolation 配对后即可开始工作</translation>
    </message>
    <message>
        <source>Not paired: this computer was unpaired</source>
        <translation>未配对：此计算机已解除配对</translation>
    </message>
    <message>
        <source>This computer is not paired</source>
        <translation>此计算机未配对</translation>
    </message>
    <message>
        <source>Connected by the user</source>
        <translation>已由用户连接</translation>
    </message>
    <message>
        <source>Disconnected by the user</source>
        <translation>已由用户断开</translation>
    </message>
    <message>
        <source>Disconnected: the cloud cannot reach this computer until you connect</source>
        <translation>已断开：在您重新连接之前，云端无法访问此计算机</translation>
    </message>
    <message>
        <source>The body must be {&quot;connected&quot;: true|false}</source>
        <translation>请求体必须是 {&quot;connected&quot;: true|false}</translation>
    </message>
    <message>
        <source>This computer is paired: its hub is the one it is paired with. Unpair first</source>
        <translation>此计算机已配对：它的中心就是已配对的中心。请先取消配对</translation>
    </message>
    <message>
        <source>hubUrl is empty</source>
        <translation>hubUrl 为空</translation>
    </message>
    <message>
        <source>The cloud cannot reach this computer: %1</source>
        <translation>云端无法连接到这台计算机：%1</translation>
    </message>
    <message>
        <source>The cloud cannot reach this computer: the tunnel to the hub is down. Check the network connection; the engine keeps trying.</source>
        <translation>云端无法连接到这台计算机：到中心的隧道已断开。请检查网络连接；引擎会继续重试。</translation>
    </message>
    <message>
        <source>Sessions cannot launch here: %1</source>
        <translation>无法在此启动会话：%1</translation>
    </message>
    <message>
        <source>The sandbox runtime is not healthy yet; sessions cannot launch until it is (isolation-server runtime status says more)</source>
        <translation>沙箱运行时尚未就绪；在此之前无法启动会话（isolation-server runtime status 可查看详情）</translation>
    </message>
    <message>
        <source>Disconnected: the tunnel is closed until you connect again</source>
        <translation>已断开：在您重新连接之前隧道保持关闭</translation>
    </message>
    <message>
        <source>The tunnel to the hub is not up: %1</source>
        <translation>到中心的隧道未建立：%1</translation>
    </message>
    <message>
        <source>The sandbox runtime is not healthy: %1</source>
        <translation>沙箱运行时不正常：%1</translation>
    </message>
    <message>
        <source>--metrics-listen wants ADDRESS:PORT, e.g. 127.0.0.1:9464, not %1</source>
        <translation>--metrics-listen 需要 地址:端口，例如 127.0.0.1:9464，而不是 %1</translation>
    </message>
    <message>
        <source>Cannot serve metrics on %1: %2</source>
        <translation>无法在 %1 上提供指标：%2</translation>
    </message>
</context>
<context>
    <name>isolation::EngineClient</name>
    <message>
        <source>The engine is not running</source>
        <translation>引擎未运行</translation>
    </message>
    <message>
        <source>The engine did not answer: %1</source>
        <translation>引擎没有响应：%1</translation>
    </message>
    <message>
        <source>The engine stopped before it answered</source>
        <translation>引擎在应答之前已停止</translation>
    </message>
</context>
<context>
    <name>isolation::EngineConnection</name>
    <message>
        <source>Cannot start the engine (%1): %2</source>
        <translation>无法启动引擎（%1）：%2</translation>
    </message>
    <message>
        <source>Starting the engine</source>
        <translation>正在启动引擎</translation>
    </message>
    <message>
        <source>The engine was started but did not answer within %1 s; its log (engine.log in its state directory) says why</source>
        <translation>引擎已启动，但在 %1 秒内没有响应；其日志（状态目录中的 engine.log）说明了原因</translation>
    </message>
</context>
<context>
    <name>isolation::EngineModel</name>
    <message>
        <source>Looking for the engine…</source>
        <translation>正在查找引擎…</translation>
    </message>
    <message>
        <source>Starting the engine…</source>
        <translation>正在启动引擎…</translation>
    </message>
    <message>
        <source>Reading the engine&apos;s state…</source>
        <translation>正在读取引擎状态…</translation>
    </message>
    <message>
        <source>Engine not running</source>
        <translation>引擎未运行</translation>
    </message>
    <message>
        <source>Engine not running: %1</source>
        <translation>引擎未运行：%1</translation>
    </message>
    <message>
        <source>Your keychain is locked. Unlock it (GNOME Keyring, KWallet), then stop and start the engine so it reads this computer&apos;s credentials again.</source>
        <translation>您的钥匙串已锁定。请将其解锁（GNOME Keyring、KWallet），然后停止并重新启动引擎，以便它再次读取此计算机的凭据。</translation>
    </message>
    <message>
        <source>No desktop keychain answers. Start one (GNOME Keyring, KWallet) and start the engine again, or run the engine without one: isolation-server up --credential-store file</source>
        <translation>没有桌面钥匙串响应。请启动一个（GNOME Keyring、KWallet）并重新启动引擎，或在没有钥匙串的情况下运行引擎：isolation-server up --credential-store file</translation>
    </message>
    <message>
        <source>The credentials stored for this computer are unusable: unpair it and pair it again.</source>
        <translation>为此计算机存储的凭据无法使用：请取消配对并重新配对。</translation>
    </message>
    <message>
        <source>Unlock your keychain (GNOME Keyring, KWallet) and start the engine again, or run it without one: isolation-server up --credential-store file</source>
        <translation>请解锁您的钥匙串（GNOME Keyring、KWallet）并重新启动引擎，或在没有钥匙串的情况下运行：isolation-server up --credential-store file</translation>
    </message>
</context>
<context>
    <name>isolation::FinishFlow</name>
    <message>
        <source>Finish session</source>
        <translation>结束会话</translation>
    </message>
    <message>
        <source>Finish session %1? Its sandbox is deleted and its folder removed from this computer.</source>
        <translation>结束会话 %1？它的沙箱将被删除，其文件夹将从此计算机中移除。</translation>
    </message>
    <message>
        <source>&amp;Finish</source>
        <translation>结束(&amp;F)</translation>
    </message>
    <message>
        <source>Unsaved work</source>
        <translation>未保存的工作</translation>
    </message>
    <message>
        <source>%1

Discard the unsaved work and finish?</source>
        <translation>%1

放弃未保存的工作并结束？</translation>
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
        <translation>引擎状态</translation>
    </message>
    <message>
        <source>Views</source>
        <translation>视图</translation>
    </message>
    <message>
        <source>&amp;Sessions</source>
        <translation>会话(&amp;S)</translation>
    </message>
    <message>
        <source>&amp;Changes</source>
        <translation>更改(&amp;C)</translation>
    </message>
    <message>
        <source>C&amp;onflicts</source>
        <translation>冲突(&amp;O)</translation>
    </message>
    <message>
        <source>&amp;Warm cache</source>
        <translation>预热缓存(&amp;W)</translation>
    </message>
    <message>
        <source>&amp;Runtime</source>
        <translation>运行时(&amp;R)</translation>
    </message>
    <message>
        <source>&amp;Activity</source>
        <translation>活动(&amp;A)</translation>
    </message>
    <message>
        <source>S&amp;tart the engine</source>
        <translation>启动引擎(&amp;T)</translation>
    </message>
    <message>
        <source>&amp;Pair this computer…</source>
        <translation>配对此计算机(&amp;P)…</translation>
    </message>
    <message>
        <source>Warnings</source>
        <translation>警告</translation>
    </message>
    <message>
        <source>Error: %1 (since %2)</source>
        <translation>错误：%1（自 %2 起）</translation>
    </message>
    <message>
        <source>Warning: %1 (since %2)</source>
        <translation>警告：%1（自 %2 起）</translation>
    </message>
    <message>
        <source>&lt;b&gt;This computer is not paired.&lt;/b&gt; Pair it with your Isolation account so that sessions can be started and saved here.</source>
        <translation>&lt;b&gt;此计算机尚未配对。&lt;/b&gt;请将其与您的 Isolation 账户配对，以便在此启动和保存会话。</translation>
    </message>
</context>
<context>
    <name>isolation::MirrorSync</name>
    <message>
        <source>a segment of the workspace needs commits that no earlier segment brings</source>
        <translation>工作区的一个分段需要之前的分段都未提供的提交</translation>
    </message>
</context>
<context>
    <name>isolation::PairingController</name>
    <message>
        <source>Cannot read this computer&apos;s credentials from %1: %2</source>
        <translation>无法从 %1 读取此计算机的凭据：%2</translation>
    </message>
    <message>
        <source>The credentials stored in %1 are unusable (%2); unpair and pair again</source>
        <translation>存储在 %1 中的凭据无法使用（%2）；请解除配对后重新配对</translation>
    </message>
    <message>
        <source>This computer is already paired; unpair it first</source>
        <translation>此计算机已配对；请先解除配对</translation>
    </message>
    <message>
        <source>A pairing is already under way</source>
        <translation>配对已在进行中</translation>
    </message>
    <message>
        <source>Paired, but the credentials could not be stored in %1: %2</source>
        <translation>已配对，但无法将凭据存储到 %1：%2</translation>
    </message>
    <message>
        <source>Paired with %1</source>
        <translation>已与 %1 配对</translation>
    </message>
</context>
<context>
    <name>isolation::PairingDialog</name>
    <message>
        <source>Pair this computer</source>
        <translation>配对此计算机</translation>
    </message>
    <message>
        <source>Pairing code</source>
        <translation>配对码</translation>
    </message>
    <message>
        <source>QR code of the approval link</source>
        <translation>批准链接的二维码</translation>
    </message>
    <message>
        <source>&amp;Open in browser</source>
        <translation>在浏览器中打开(&amp;O)</translation>
    </message>
    <message>
        <source>&amp;Copy link</source>
        <translation>复制链接(&amp;C)</translation>
    </message>
    <message>
        <source>&amp;Try again</source>
        <translation>重试(&amp;T)</translation>
    </message>
    <message>
        <source>Cancel</source>
        <translation>取消</translation>
    </message>
    <message>
        <source>Copied</source>
        <translation>已复制</translation>
    </message>
    <message>
        <source>Open the link (or scan the code) and approve this computer. Check that the page shows this code:</source>
        <translation>打开链接（或扫描二维码）并批准此计算机。请确认页面显示的是此代码：</translation>
    </message>
    <message>
        <source>Asking %1 for a code…</source>
        <translation>正在向 %1 请求代码…</translation>
    </message>
    <message>
        <source>Approved. Saving this computer&apos;s keys…</source>
        <translation>已批准。正在保存此计算机的密钥…</translation>
    </message>
    <message>
        <source>Paired. This computer is now connected to Isolation.</source>
        <translation>已配对。此计算机现已连接到 Isolation。</translation>
    </message>
    <message>
        <source>Close</source>
        <translation>关闭</translation>
    </message>
    <message>
        <source>The code has expired</source>
        <translation>代码已过期</translation>
    </message>
    <message>
        <source>The code expires in %1:%2</source>
        <translation>代码将在 %1:%2 后过期</translation>
    </message>
</context>
<context>
    <name>isolation::PairingFlow</name>
    <message>
        <source>Pairing was cancelled</source>
        <translation>配对已取消</translation>
    </message>
    <message>
        <source>The pairing code expired before it was approved</source>
        <translation>配对码在获得批准前已过期</translation>
    </message>
    <message>
        <source>Pairing was denied</source>
        <translation>配对被拒绝</translation>
    </message>
    <message>
        <source>Pairing was denied: %1</source>
        <translation>配对被拒绝：%1</translation>
    </message>
    <message>
        <source>Pairing failed: %1</source>
        <translation>配对失败：%1</translation>
    </message>
    <message>
        <source>The member key from the hub could not be opened: %1</source>
        <translation>无法打开来自中心的成员密钥：%1</translation>
    </message>
    <message>
        <source>The hub&apos;s approval is incomplete</source>
        <translation>中心的批准不完整</translation>
    </message>
</context>
<context>
    <name>isolation::RuntimeManager</name>
    <message>
        <source>The runtime has not been started</source>
        <translation>运行时尚未启动</translation>
    </message>
    <message>
        <source>Starting the runtime</source>
        <translation>正在启动运行时</translation>
    </message>
    <message>
        <source>Cannot read the runtime&apos;s API key from %1: %2</source>
        <translation>无法从 %1 读取运行时的 API 密钥：%2</translation>
    </message>
    <message>
        <source>Cannot store the runtime&apos;s API key in %1: %2</source>
        <translation>无法将运行时的 API 密钥存储到 %1：%2</translation>
    </message>
    <message>
        <source>Runtime healthy: %1</source>
        <translation>运行时正常：%1</translation>
    </message>
    <message>
        <source>Docker is not available: %1</source>
        <translation>Docker 不可用：%1</translation>
    </message>
    <message>
        <source>The runtime is not started</source>
        <translation>运行时未启动</translation>
    </message>
    <message>
        <source>Restarting the runtime</source>
        <translation>正在重启运行时</translation>
    </message>
    <message>
        <source>The runtime was removed</source>
        <translation>运行时已被移除</translation>
    </message>
    <message>
        <source>Cannot serve Docker to the runtime: %1</source>
        <translation>无法为运行时提供 Docker：%1</translation>
    </message>
</context>
<context>
    <name>isolation::RuntimePage</name>
    <message>
        <source>Runtime</source>
        <translation>运行时</translation>
    </message>
    <message>
        <source>Sandboxes run in containers made by the pinned OpenSandbox runtime, which the engine keeps running in Docker on this computer.</source>
        <translation>沙箱运行在由固定版本的 OpenSandbox 运行时创建的容器中；引擎让该运行时在此计算机的 Docker 中持续运行。</translation>
    </message>
    <message>
        <source>State:</source>
        <translation>状态：</translation>
    </message>
    <message>
        <source>Details:</source>
        <translation>详情：</translation>
    </message>
    <message>
        <source>Pinned version:</source>
        <translation>固定版本：</translation>
    </message>
    <message>
        <source>Runtime image:</source>
        <translation>运行时镜像：</translation>
    </message>
    <message>
        <source>Sandbox agent image:</source>
        <translation>沙箱代理镜像：</translation>
    </message>
    <message>
        <source>Image digest:</source>
        <translation>镜像摘要：</translation>
    </message>
    <message>
        <source>Container:</source>
        <translation>容器：</translation>
    </message>
    <message>
        <source>Up for:</source>
        <translation>已运行：</translation>
    </message>
    <message>
        <source>Restarts:</source>
        <translation>重启次数：</translation>
    </message>
    <message>
        <source>Session files:</source>
        <translation>会话文件：</translation>
    </message>
    <message>
        <source>Res&amp;tart runtime</source>
        <translation>重启运行时(&amp;T)</translation>
    </message>
    <message>
        <source>Stops and starts the runtime container. Running sandboxes keep running.</source>
        <translation>停止并重新启动运行时容器。正在运行的沙箱将继续运行。</translation>
    </message>
    <message>
        <source>%1 s</source>
        <translation>%1 秒</translation>
    </message>
    <message>
        <source>%1 min %2 s</source>
        <translation>%1 分 %2 秒</translation>
    </message>
    <message>
        <source>%1 h %2 min</source>
        <translation>%1 小时 %2 分</translation>
    </message>
    <message>
        <source>%1 d %2 h</source>
        <translation>%1 天 %2 小时</translation>
    </message>
    <message>
        <source>Healthy</source>
        <translation>正常</translation>
    </message>
    <message>
        <source>Starting</source>
        <translation>正在启动</translation>
    </message>
    <message>
        <source>Not answering</source>
        <translation>无响应</translation>
    </message>
    <message>
        <source>Restarting</source>
        <translation>正在重启</translation>
    </message>
    <message>
        <source>Upgrading</source>
        <translation>正在升级</translation>
    </message>
    <message>
        <source>Docker is not available</source>
        <translation>Docker 不可用</translation>
    </message>
    <message>
        <source>Failed</source>
        <translation>失败</translation>
    </message>
    <message>
        <source>Not running</source>
        <translation>未运行</translation>
    </message>
    <message>
        <source>(offline stand-in)</source>
        <translation>（离线替身）</translation>
    </message>
    <message>
        <source>Restarting…</source>
        <translation>正在重启…</translation>
    </message>
</context>
<context>
    <name>isolation::SandboxControl</name>
    <message>
        <source>cannot create %1</source>
        <translation>无法创建 %1</translation>
    </message>
    <message>
        <source>cannot open %1: %2</source>
        <translation>无法打开 %1：%2</translation>
    </message>
    <message>
        <source>cannot watch %1</source>
        <translation>无法监视 %1</translation>
    </message>
    <message>
        <source>the request is not a regular file</source>
        <translation>请求不是普通文件</translation>
    </message>
    <message>
        <source>the request is larger than %1 bytes</source>
        <translation>请求大于 %1 字节</translation>
    </message>
    <message>
        <source>too many requests at once; ask again later</source>
        <translation>同时请求过多；请稍后再试</translation>
    </message>
    <message>
        <source>cannot write the save and sync scripts into %1</source>
        <translation>无法将保存和同步脚本写入 %1</translation>
    </message>
    <message>
        <source>sync takes --resolve or nothing</source>
        <translation>sync 只接受 --resolve 或不带参数</translation>
    </message>
</context>
<context>
    <name>isolation::SaveFlow</name>
    <message>
        <source>This computer is not paired: pair it to save to the hub</source>
        <translation>此计算机未配对：请配对后再保存到中心</translation>
    </message>
    <message>
        <source>The workspace moved on since this session last synced: sync, then save again</source>
        <translation>自此会话上次同步以来，工作区已有新的保存：请先同步，再重新保存</translation>
    </message>
    <message>
        <source>main and this session conflict: sync first (%1)</source>
        <translation>main 与此会话冲突：请先同步（%1）</translation>
    </message>
    <message>
        <source>cannot create %1</source>
        <translation>无法创建 %1</translation>
    </message>
    <message>
        <source>The workspace moved on: sync, then save again</source>
        <translation>工作区已有新的保存：请先同步，再重新保存</translation>
    </message>
    <message>
        <source>The hub did not confirm the save and cannot be asked now (%1); it is settled before the next save or sync</source>
        <translation>中心未确认此次保存，且目前无法询问（%1）；将在下次保存或同步之前确认</translation>
    </message>
    <message>
        <source>Another save reached the hub first: nothing was written; sync, then save again</source>
        <translation>另一次保存先到达了中心：没有写入任何内容；请先同步，再重新保存</translation>
    </message>
    <message>
        <source>Save cancelled: nothing was published; the merge into main is undone, the work stays on the session branch</source>
        <translation>保存已取消：没有发布任何内容；合并到 main 的操作已撤销，工作保留在会话分支上</translation>
    </message>
    <message>
        <source>Save cancelled: nothing was published; the work stays on the session</source>
        <translation>保存已取消：没有发布任何内容；工作保留在会话中</translation>
    </message>
</context>
<context>
    <name>isolation::Session</name>
    <message>
        <source>the engine is stopping</source>
        <translation>引擎正在停止</translation>
    </message>
    <message>
        <source>This computer is no longer paired</source>
        <translation>此计算机已不再配对</translation>
    </message>
    <message>
        <source>The session is still opening</source>
        <translation>会话仍在打开中</translation>
    </message>
    <message>
        <source>This computer is not paired: pair it to ask the hub</source>
        <translation>此计算机未配对：请配对后再询问中心</translation>
    </message>
    <message>
        <source>This computer is not paired: the last save cannot be settled</source>
        <translation>此计算机未配对：无法确认上一次保存</translation>
    </message>
    <message>
        <source>The outcome of save %1 is not known yet (%2): it is settled before the next save or sync</source>
        <translation>保存 %1 的结果尚不清楚（%2）：将在下次保存或同步之前确认</translation>
    </message>
    <message>
        <source>the session is finishing</source>
        <translation>会话正在结束</translation>
    </message>
    <message>
        <source>The worktree of session %1 is gone from the disk (%2). Restore it from the session branch with `isolation-server restore %1` (what was not saved is lost), or finish the session with `isolation-server finish %1 --discard`</source>
        <translation>会话 %1 的工作目录已从磁盘上消失（%2）。可用 `isolation-server restore %1` 从会话分支恢复（未保存的内容已丢失），或用 `isolation-server finish %1 --discard` 结束该会话</translation>
    </message>
    <message>
        <source>The save message is %1 bytes long; the limit is %2 bytes</source>
        <translation>保存说明长 %1 字节；上限为 %2 字节</translation>
    </message>
    <message>
        <source>The worktree of session %1 is there (%2): nothing to restore</source>
        <translation>会话 %1 的工作目录仍在（%2）：无需恢复</translation>
    </message>
    <message>
        <source>Nothing to cancel: no operation runs</source>
        <translation>没有可取消的操作：当前没有正在运行的操作</translation>
    </message>
    <message>
        <source>The %1 can no longer be cancelled: it is in its last step</source>
        <translation>%1 已无法取消：它正处于最后一步</translation>
    </message>
    <message>
        <source>The %1 can no longer be cancelled</source>
        <translation>%1 已无法取消</translation>
    </message>
    <message>
        <source>The sandbox&apos;s launch can no longer be cancelled</source>
        <translation>沙箱的启动已无法取消</translation>
    </message>
    <message>
        <source>Start cancelled: the new session is removed</source>
        <translation>启动已取消：新会话已被移除</translation>
    </message>
</context>
<context>
    <name>isolation::SessionManager</name>
    <message>
        <source>This computer is no longer paired</source>
        <translation>此计算机已不再配对</translation>
    </message>
    <message>
        <source>This computer is not paired: pair it to see its member&apos;s workspaces</source>
        <translation>此计算机未配对：请配对后查看其成员的工作区</translation>
    </message>
    <message>
        <source>No workspace named %1</source>
        <translation>没有名为 %1 的工作区</translation>
    </message>
    <message numerus="yes">
        <source>%n workspaces are named %1: give the id</source>
        <translation>
            <numerusform>有 %n 个工作区名为 %1：请提供 ID</numerusform>
        </translation>
    </message>
    <message>
        <source>cannot create %1</source>
        <translation>无法创建 %1</translation>
    </message>
    <message>
        <source>This computer is not paired</source>
        <translation>此计算机未配对</translation>
    </message>
    <message>
        <source>%1 cannot name a new session (s and 12 hex digits, not used yet)</source>
        <translation>%1 不能用作新会话的名称（须为 s 加 12 位十六进制数字，且尚未使用）</translation>
    </message>
    <message>
        <source>No session %1</source>
        <translation>没有会话 %1</translation>
    </message>
    <message>
        <source>Session %1 is busy (%2): try again when it is done</source>
        <translation>会话 %1 正忙（%2）：请在完成后重试</translation>
    </message>
</context>
<context>
    <name>isolation::SessionPicker</name>
    <message>
        <source>Session</source>
        <translation>会话</translation>
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
        <translation>由引擎的上一次运行启动；正在等待运行时</translation>
    </message>
    <message>
        <source>This computer is not paired: launch secrets cannot be opened</source>
        <translation>此计算机未配对：无法打开启动密钥</translation>
    </message>
    <message>
        <source>Launch secrets come with the session id they were sealed for</source>
        <translation>启动密钥须附带其封装时所针对的会话 ID</translation>
    </message>
    <message>
        <source>Launch refused: the launch secrets cannot be used: %1</source>
        <translation>启动被拒绝：无法使用启动密钥：%1</translation>
    </message>
    <message>
        <source>The credential of %1 names the launch secret %2, which the launch does not carry</source>
        <translation>%1 的凭据指向启动密钥 %2，但此次启动未携带该密钥</translation>
    </message>
    <message>
        <source>The sandbox runtime is off: sessions can start without a sandbox (session new), not launch</source>
        <translation>沙箱运行时已关闭：会话可以不带沙箱开始（session new），但不能启动</translation>
    </message>
    <message>
        <source>The sandbox runtime is not ready (%1): %2</source>
        <translation>沙箱运行时尚未就绪（%1）：%2</translation>
    </message>
    <message>
        <source>The sandbox runtime went away</source>
        <translation>沙箱运行时已消失</translation>
    </message>
    <message>
        <source>cannot clone %1 into %2: %3</source>
        <translation>无法将 %1 克隆到 %2：%3</translation>
    </message>
    <message>
        <source>Session %1 runs no agent here</source>
        <translation>会话 %1 在此未运行代理</translation>
    </message>
    <message>
        <source>Session %1 has no sandbox (it was started with session new)</source>
        <translation>会话 %1 没有沙箱（它是用 session new 开始的）</translation>
    </message>
    <message>
        <source>The sandbox of session %1 is %2: %3</source>
        <translation>会话 %1 的沙箱处于 %2：%3</translation>
    </message>
    <message>
        <source>No sandbox of session %1 runs here</source>
        <translation>此处没有运行会话 %1 的沙箱</translation>
    </message>
    <message>
        <source>The sandbox of session %1 is %2</source>
        <translation>会话 %1 的沙箱处于 %2</translation>
    </message>
    <message>
        <source>No session %1</source>
        <translation>没有会话 %1</translation>
    </message>
    <message>
        <source>Session %1 is not running (its sandbox is %2)</source>
        <translation>会话 %1 未在运行（其沙箱处于 %2）</translation>
    </message>
    <message>
        <source>Suspend</source>
        <translation>暂停</translation>
    </message>
    <message>
        <source>Not suspended: the save failed: %1</source>
        <translation>未暂停：保存失败：%1</translation>
    </message>
    <message>
        <source>Not finished: the changes cannot be read (%1); finish --discard drops them</source>
        <translation>未结束：无法读取更改（%1）；finish --discard 会丢弃它们</translation>
    </message>
    <message>
        <source>Session %1 has unsaved work (%2 changed file(s), %3 commit(s) not in main): save it first, or finish --discard</source>
        <translation>会话 %1 有未保存的工作（%2 个已更改文件，%3 个不在 main 中的提交）：请先保存，或使用 finish --discard</translation>
    </message>
    <message>
        <source>Not finished: the sandbox could not be deleted: %1</source>
        <translation>未结束：无法删除沙箱：%1</translation>
    </message>
    <message>
        <source>the session is gone</source>
        <translation>会话已不存在</translation>
    </message>
    <message>
        <source>Saved from the sandbox</source>
        <translation>从沙箱中保存</translation>
    </message>
    <message>
        <source>nothing to save</source>
        <translation>没有需要保存的内容</translation>
    </message>
    <message>
        <source>Not suspended: %1</source>
        <translation>未挂起：%1</translation>
    </message>
    <message>
        <source>Not suspended: the sandbox could not be deleted: %1</source>
        <translation>未挂起：无法删除沙箱：%1</translation>
    </message>
    <message>
        <source>Session %1 is not suspended (its sandbox is %2)</source>
        <translation>会话 %1 未挂起（其沙箱为 %2）</translation>
    </message>
    <message>
        <source>The sandbox runtime is not ready</source>
        <translation>沙箱运行时尚未就绪</translation>
    </message>
    <message>
        <source>Launch cancelled: the sandbox and the session are removed</source>
        <translation>启动已取消：沙箱和会话已被移除</translation>
    </message>
</context>
<context>
    <name>isolation::SessionsController</name>
    <message>
        <source>The engine is not running</source>
        <translation>引擎未运行</translation>
    </message>
</context>
<context>
    <name>isolation::SessionsPage</name>
    <message>
        <source>Opening…</source>
        <translation>正在打开…</translation>
    </message>
    <message>
        <source>Conflicts</source>
        <translation>冲突</translation>
    </message>
    <message>
        <source>Another session saved first</source>
        <translation>另一个会话先保存了</translation>
    </message>
    <message>
        <source>Ready</source>
        <translation>就绪</translation>
    </message>
    <message>
        <source>Saving…</source>
        <translation>正在保存…</translation>
    </message>
    <message>
        <source>Saving: %1</source>
        <translation>正在保存：%1</translation>
    </message>
    <message>
        <source>Syncing…</source>
        <translation>正在同步…</translation>
    </message>
    <message>
        <source>Syncing: %1</source>
        <translation>正在同步：%1</translation>
    </message>
    <message>
        <source>Failed: %1</source>
        <translation>失败：%1</translation>
    </message>
    <message>
        <source>Workspace name</source>
        <translation>工作区名称</translation>
    </message>
    <message>
        <source>Workspace for a new session</source>
        <translation>新会话的工作区</translation>
    </message>
    <message>
        <source>&amp;New session</source>
        <translation>新建会话(&amp;N)</translation>
    </message>
    <message>
        <source>Wor&amp;kspace:</source>
        <translation>工作区(&amp;K)：</translation>
    </message>
    <message>
        <source>Sessions</source>
        <translation>会话</translation>
    </message>
    <message>
        <source>Workspace</source>
        <translation>工作区</translation>
    </message>
    <message>
        <source>State</source>
        <translation>状态</translation>
    </message>
    <message>
        <source>Changed files</source>
        <translation>已更改的文件</translation>
    </message>
    <message>
        <source>Ahead / behind main</source>
        <translation>领先 / 落后 main</translation>
    </message>
    <message>
        <source>Last save</source>
        <translation>上次保存</translation>
    </message>
    <message>
        <source>Save a&amp;ll</source>
        <translation>全部保存(&amp;L)</translation>
    </message>
    <message>
        <source>S&amp;ync</source>
        <translation>同步(&amp;Y)</translation>
    </message>
    <message>
        <source>Open &amp;folder</source>
        <translation>打开文件夹(&amp;F)</translation>
    </message>
    <message>
        <source>Starting a session on %1…</source>
        <translation>正在 %1 上启动会话…</translation>
    </message>
    <message>
        <source>Session %1 is ready.</source>
        <translation>会话 %1 已就绪。</translation>
    </message>
    <message>
        <source>No session started: %1</source>
        <translation>未启动会话：%1</translation>
    </message>
    <message>
        <source>Session %1 in %2</source>
        <translation>会话 %1，位于 %2</translation>
    </message>
    <message>
        <source>%1 ahead, %2 behind</source>
        <translation>领先 %1，落后 %2</translation>
    </message>
    <message>
        <source>never</source>
        <translation>从未</translation>
    </message>
    <message>
        <source>Pair this computer first: sessions come from the hub</source>
        <translation>请先配对此计算机：会话来自中心</translation>
    </message>
    <message>
        <source>Choose a session first</source>
        <translation>请先选择一个会话</translation>
    </message>
    <message>
        <source>The session is busy: %1</source>
        <translation>会话正忙：%1</translation>
    </message>
    <message>
        <source>Pair this computer first: saving and syncing need the hub</source>
        <translation>请先配对此计算机：保存和同步需要中心</translation>
    </message>
    <message>
        <source>%1 %2 of %3</source>
        <translation>%1 %2 / %3</translation>
    </message>
    <message>
        <source>%1 %2</source>
        <translation>%1 %2</translation>
    </message>
    <message>
        <source>Starting</source>
        <translation>正在启动</translation>
    </message>
    <message>
        <source>Running</source>
        <translation>运行中</translation>
    </message>
    <message>
        <source>Suspending</source>
        <translation>正在挂起</translation>
    </message>
    <message>
        <source>Suspended</source>
        <translation>已挂起</translation>
    </message>
    <message>
        <source>Resuming</source>
        <translation>正在恢复</translation>
    </message>
    <message>
        <source>Finishing</source>
        <translation>正在结束</translation>
    </message>
    <message>
        <source>Gone</source>
        <translation>已不存在</translation>
    </message>
    <message>
        <source>Failed</source>
        <translation>失败</translation>
    </message>
    <message>
        <source>agent not started</source>
        <translation>代理未启动</translation>
    </message>
    <message>
        <source>agent running</source>
        <translation>代理运行中</translation>
    </message>
    <message>
        <source>agent restarting</source>
        <translation>代理正在重启</translation>
    </message>
    <message>
        <source>agent stopped</source>
        <translation>代理已停止</translation>
    </message>
    <message>
        <source>agent done</source>
        <translation>代理已完成</translation>
    </message>
    <message>
        <source>agent failed</source>
        <translation>代理失败</translation>
    </message>
    <message>
        <source>agent</source>
        <translation>代理</translation>
    </message>
    <message numerus="yes">
        <source>%1, %n restart(s)</source>
        <translation>
            <numerusform>%1，重启 %n 次</numerusform>
        </translation>
    </message>
    <message>
        <source>%1 · %2</source>
        <translation>%1 · %2</translation>
    </message>
    <message>
        <source>Sandbox</source>
        <translation>沙箱</translation>
    </message>
    <message>
        <source>S&amp;uspend</source>
        <translation>挂起(&amp;U)</translation>
    </message>
    <message>
        <source>Saves what changed, then pauses the session&apos;s sandbox</source>
        <translation>保存更改，然后暂停会话的沙箱</translation>
    </message>
    <message>
        <source>Resu&amp;me</source>
        <translation>恢复(&amp;M)</translation>
    </message>
    <message>
        <source>F&amp;inish…</source>
        <translation>结束(&amp;I)…</translation>
    </message>
    <message>
        <source>Deletes the session&apos;s sandbox and removes its folder from this computer</source>
        <translation>删除会话的沙箱，并从此计算机中移除其文件夹</translation>
    </message>
    <message>
        <source>Suspending %1: saving what changed, then pausing its sandbox…</source>
        <translation>正在挂起 %1：保存更改，然后暂停其沙箱…</translation>
    </message>
    <message>
        <source>Resuming %1…</source>
        <translation>正在恢复 %1…</translation>
    </message>
    <message>
        <source>Only a running sandbox can be suspended</source>
        <translation>只有运行中的沙箱可以挂起</translation>
    </message>
    <message>
        <source>Only a suspended sandbox can be resumed</source>
        <translation>只有已挂起的沙箱可以恢复</translation>
    </message>
    <message>
        <source>Opening: %1</source>
        <translation>正在打开：%1</translation>
    </message>
    <message>
        <source>&amp;Cancel</source>
        <translation>取消(&amp;C)</translation>
    </message>
    <message>
        <source>Cancelling…</source>
        <translation>正在取消…</translation>
    </message>
    <message>
        <source>Stop it: the new session is removed</source>
        <translation>停止：新会话将被移除</translation>
    </message>
    <message>
        <source>It cannot be stopped now: wait for it to end</source>
        <translation>现在无法停止：请等待它结束</translation>
    </message>
</context>
<context>
    <name>isolation::SettingsDialog</name>
    <message>
        <source>Isolation settings</source>
        <translation>Isolation 设置</translation>
    </message>
    <message>
        <source>Hub URL</source>
        <translation>中心 URL</translation>
    </message>
    <message>
        <source>&amp;Hub:</source>
        <translation>中心(&amp;H)：</translation>
    </message>
    <message>
        <source>Data:</source>
        <translation>数据：</translation>
    </message>
    <message>
        <source>Pairing:</source>
        <translation>配对：</translation>
    </message>
    <message>
        <source>&amp;Unpair this computer…</source>
        <translation>解除此计算机的配对(&amp;U)…</translation>
    </message>
    <message>
        <source>Paired as %1 (%2)</source>
        <translation>已配对为 %1（%2）</translation>
    </message>
    <message>
        <source>Not paired</source>
        <translation>未配对</translation>
    </message>
    <message>
        <source>This computer is not paired</source>
        <translation>此计算机未配对</translation>
    </message>
    <message>
        <source>Unpair first to pair with another hub</source>
        <translation>请先解除配对，再与其他中心配对</translation>
    </message>
    <message>
        <source>Unpair this computer?</source>
        <translation>解除此计算机的配对？</translation>
    </message>
    <message>
        <source>Isolation will no longer reach sessions on this computer until you pair it again. Unpair?</source>
        <translation>在重新配对之前，Isolation 将无法访问此计算机上的会话。确定解除配对？</translation>
    </message>
    <message>
        <source>Colour</source>
        <translation>彩色</translation>
    </message>
    <message>
        <source>Monochrome, for light panels</source>
        <translation>单色，适用于浅色面板</translation>
    </message>
    <message>
        <source>Monochrome, for dark panels</source>
        <translation>单色，适用于深色面板</translation>
    </message>
    <message>
        <source>Tray &amp;icon:</source>
        <translation>托盘图标(&amp;I)：</translation>
    </message>
    <message>
        <source>Another session saved first</source>
        <translation>另一个会话先保存了</translation>
    </message>
    <message>
        <source>A sync conflicts</source>
        <translation>同步出现冲突</translation>
    </message>
    <message>
        <source>This computer is unpaired</source>
        <translation>此计算机被解除配对</translation>
    </message>
    <message>
        <source>The runtime stops working</source>
        <translation>运行时停止工作</translation>
    </message>
    <message>
        <source>Notify me when:</source>
        <translation>在以下情况通知我：</translation>
    </message>
    <message>
        <source>Start the &amp;engine at login</source>
        <translation>登录时启动引擎(&amp;E)</translation>
    </message>
    <message>
        <source>Show the &amp;tray at login</source>
        <translation>登录时显示托盘(&amp;T)</translation>
    </message>
    <message>
        <source>At login:</source>
        <translation>登录时：</translation>
    </message>
    <message>
        <source>Looking up how this desktop starts programs at login…</source>
        <translation>正在查询此桌面在登录时如何启动程序…</translation>
    </message>
    <message>
        <source>Through the systemd user unit isolation-server.service, so the engine runs without a desktop too.</source>
        <translation>通过 systemd 用户单元 isolation-server.service，因此引擎在没有桌面时也会运行。</translation>
    </message>
    <message>
        <source>Through an autostart entry of this desktop (%1).</source>
        <translation>通过此桌面的自动启动条目（%1）。</translation>
    </message>
</context>
<context>
    <name>isolation::SingleInstance</name>
    <message>
        <source>another tray is running (%1)</source>
        <translation>另一个托盘程序正在运行（%1）</translation>
    </message>
    <message>
        <source>cannot listen on %1: %2</source>
        <translation>无法在 %1 上监听：%2</translation>
    </message>
</context>
<context>
    <name>isolation::SyncFlow</name>
    <message>
        <source>This computer is not paired: pair it to sync with the hub</source>
        <translation>此计算机未配对：请配对后再与中心同步</translation>
    </message>
    <message>
        <source>This computer is not paired</source>
        <translation>此计算机未配对</translation>
    </message>
    <message numerus="yes">
        <source>%n file(s) conflict with main; nothing was changed (sync --resolve leaves git&apos;s markers in the files)</source>
        <translation>
            <numerusform>%n 个文件与 main 冲突；没有做任何更改（sync --resolve 会在文件中保留 git 的冲突标记）</numerusform>
        </translation>
    </message>
    <message>
        <source>Sync cancelled: the session&apos;s branch and files are as they were</source>
        <translation>同步已取消：会话的分支和文件保持原样</translation>
    </message>
</context>
<context>
    <name>isolation::TrayApplication</name>
    <message>
        <source>&amp;Pair this computer…</source>
        <translation>配对此计算机(&amp;P)…</translation>
    </message>
    <message>
        <source>&amp;Open Isolation…</source>
        <translation>打开 Isolation(&amp;O)…</translation>
    </message>
    <message>
        <source>&amp;Settings…</source>
        <translation>设置(&amp;S)…</translation>
    </message>
    <message>
        <source>Isolation: %1</source>
        <translation>Isolation：%1</translation>
    </message>
    <message>
        <source>This computer is no longer paired</source>
        <translation>此计算机已不再配对</translation>
    </message>
    <message>
        <source>Open Isolation</source>
        <translation>打开 Isolation</translation>
    </message>
    <message>
        <source>Pair again…</source>
        <translation>重新配对…</translation>
    </message>
    <message>
        <source>S&amp;essions</source>
        <translation>会话(&amp;E)</translation>
    </message>
    <message>
        <source>Files in conflict: open Conflicts to resolve them</source>
        <translation>有冲突的文件：请打开&quot;冲突&quot;进行解决</translation>
    </message>
    <message>
        <source>Another session saved first: sync, then save again</source>
        <translation>另一个会话先保存了：请先同步，再重新保存</translation>
    </message>
    <message>
        <source>Saving or syncing</source>
        <translation>正在保存或同步</translation>
    </message>
    <message>
        <source>Another session saved first</source>
        <translation>另一个会话先保存了</translation>
    </message>
    <message>
        <source>%1: nothing of your save reached the hub; your work is kept in the session. Sync, then save again.</source>
        <translation>%1：您的保存没有任何内容到达中心；您的工作保留在会话中。请先同步，再重新保存。</translation>
    </message>
    <message>
        <source>Open</source>
        <translation>打开</translation>
    </message>
    <message>
        <source>Sync now</source>
        <translation>立即同步</translation>
    </message>
    <message numerus="yes">
        <source>%n file(s) in conflict</source>
        <translation>
            <numerusform>%n 个文件有冲突</numerusform>
        </translation>
    </message>
    <message>
        <source>%1: %2</source>
        <translation>%1：%2</translation>
    </message>
    <message>
        <source>%1 — %2</source>
        <translation>%1 — %2</translation>
    </message>
    <message>
        <source>&amp;Open</source>
        <translation>打开(&amp;O)</translation>
    </message>
    <message>
        <source>Save &amp;all</source>
        <translation>全部保存(&amp;A)</translation>
    </message>
    <message>
        <source>S&amp;ync</source>
        <translation>同步(&amp;Y)</translation>
    </message>
    <message>
        <source>Pause &amp;notifications for an hour</source>
        <translation>暂停通知一小时(&amp;N)</translation>
    </message>
    <message>
        <source>The sandbox runtime stopped working</source>
        <translation>沙箱运行时已停止工作</translation>
    </message>
    <message>
        <source>S&amp;uspend</source>
        <translation>暂停(&amp;U)</translation>
    </message>
    <message>
        <source>&amp;Resume</source>
        <translation>继续(&amp;R)</translation>
    </message>
    <message>
        <source>&amp;Finish…</source>
        <translation>结束(&amp;F)…</translation>
    </message>
    <message>
        <source>&amp;Disconnect</source>
        <translation>断开连接(&amp;D)</translation>
    </message>
    <message>
        <source>S&amp;tart the engine</source>
        <translation>启动引擎(&amp;T)</translation>
    </message>
    <message>
        <source>&amp;Quit Isolation tray</source>
        <translation>退出 Isolation 托盘(&amp;Q)</translation>
    </message>
    <message>
        <source>Closes the tray; the engine keeps this computer reachable</source>
        <translation>关闭托盘；引擎会让此计算机保持可访问</translation>
    </message>
    <message>
        <source>The Isolation engine stopped</source>
        <translation>Isolation 引擎已停止</translation>
    </message>
    <message>
        <source>The cloud cannot reach this computer until it runs again. %1</source>
        <translation>在引擎重新运行之前，云端无法访问此计算机。%1</translation>
    </message>
    <message>
        <source>Start it</source>
        <translation>启动</translation>
    </message>
    <message>
        <source>Stop the engine</source>
        <translation>停止引擎</translation>
    </message>
    <message>
        <source>Stop the Isolation engine? The cloud cannot reach this computer, and no session can be launched on it, until the engine starts again (from this menu, or at the next login).</source>
        <translation>停止 Isolation 引擎？在引擎再次启动之前（从此菜单或下次登录时），云端无法访问此计算机，也无法在其上启动会话。</translation>
    </message>
    <message>
        <source>&amp;Stop the engine</source>
        <translation>停止引擎(&amp;S)</translation>
    </message>
    <message>
        <source>Isolation</source>
        <translation>Isolation</translation>
    </message>
    <message>
        <source>&amp;Connect</source>
        <translation>连接(&amp;C)</translation>
    </message>
    <message>
        <source>Stop the en&amp;gine…</source>
        <translation>停止引擎(&amp;G)…</translation>
    </message>
    <message>
        <source>Error: %1</source>
        <translation>错误：%1</translation>
    </message>
    <message>
        <source>Warning: %1</source>
        <translation>警告：%1</translation>
    </message>
    <message>
        <source>Starting the engine (systemd user unit)</source>
        <translation>正在启动引擎（systemd 用户单元）</translation>
    </message>
</context>
<context>
    <name>isolation::TunnelClient</name>
    <message>
        <source>Tunnel not started</source>
        <translation>隧道未启动</translation>
    </message>
    <message>
        <source>the hub did not complete the tunnel handshake in time</source>
        <translation>中心未能及时完成隧道握手</translation>
    </message>
    <message>
        <source>the server id is not valid</source>
        <translation>服务器 ID 无效</translation>
    </message>
    <message>
        <source>the tunnel needs the server credential and key</source>
        <translation>隧道需要服务器的凭据和密钥</translation>
    </message>
    <message>
        <source>Tunnel stopped</source>
        <translation>隧道已停止</translation>
    </message>
    <message>
        <source>Closing the tunnel: finishing open requests</source>
        <translation>正在关闭隧道：完成未结束的请求</translation>
    </message>
    <message>
        <source>Connecting to %1</source>
        <translation>正在连接到 %1</translation>
    </message>
    <message>
        <source>the hub refused this server&apos;s credential (HTTP %1)</source>
        <translation>中心拒绝了此服务器的凭据（HTTP %1）</translation>
    </message>
    <message>
        <source>the hub refused the tunnel (HTTP %1)</source>
        <translation>中心拒绝了隧道（HTTP %1）</translation>
    </message>
    <message>
        <source>cannot reach the hub: %1</source>
        <translation>无法访问中心：%1</translation>
    </message>
    <message>
        <source>the hub closed the tunnel</source>
        <translation>中心关闭了隧道</translation>
    </message>
    <message>
        <source>the hub closed the tunnel: %1</source>
        <translation>中心关闭了隧道：%1</translation>
    </message>
    <message>
        <source>Connected to %1</source>
        <translation>已连接到 %1</translation>
    </message>
    <message>
        <source>the hub closed the tunnel (GOAWAY)</source>
        <translation>中心关闭了隧道（GOAWAY）</translation>
    </message>
    <message>
        <source>the hub broke the HTTP/2 protocol</source>
        <translation>中心违反了 HTTP/2 协议</translation>
    </message>
    <message>
        <source>Tunnel closed</source>
        <translation>隧道已关闭</translation>
    </message>
    <message>
        <source>Reconnecting in %1 s: %2</source>
        <translation>%1 秒后重新连接：%2</translation>
    </message>
    <message>
        <source>the hub stopped answering (silent for %1 s)</source>
        <translation>中心已停止响应（已静默 %1 秒）</translation>
    </message>
    <message>
        <source>tunnel drained</source>
        <translation>隧道已清空</translation>
    </message>
    <message>
        <source>the hub broke the WebSocket protocol: %1</source>
        <translation>中心违反了 WebSocket 协议：%1</translation>
    </message>
</context>
<context>
    <name>isolation::WebSocketConnector</name>
    <message>
        <source>a WebSocket URL must be wss://, or ws:// to a loopback address: %1</source>
        <translation>WebSocket URL 必须是 wss://，或指向回环地址的 ws://：%1</translation>
    </message>
    <message>
        <source>the connection closed during the WebSocket handshake</source>
        <translation>连接在 WebSocket 握手期间关闭</translation>
    </message>
    <message>
        <source>the answer to the WebSocket handshake was HTTP %1</source>
        <translation>WebSocket 握手的应答是 HTTP %1</translation>
    </message>
    <message>
        <source> (through the proxy %1:%2)</source>
        <translation>（经由代理 %1:%2）</translation>
    </message>
</context>
<context>
    <name>isolation::WebSocketLink</name>
    <message>
        <source>the peer sent a text message (only binary ones are taken)</source>
        <translation>对端发送了文本消息（只接受二进制消息）</translation>
    </message>
    <message>
        <source>the connection was lost</source>
        <translation>连接已断开</translation>
    </message>
    <message>
        <source>WebSocket protocol error: %1</source>
        <translation>WebSocket 协议错误：%1</translation>
    </message>
</context>
<context>
    <name>isolation::WorkspaceExport</name>
    <message>
        <source>Workspace %1 has nothing saved yet</source>
        <translation>工作区 %1 尚无任何保存</translation>
    </message>
    <message>
        <source>cannot write %1: %2</source>
        <translation>无法写入 %1：%2</translation>
    </message>
    <message>
        <source>Export cancelled: no file was written</source>
        <translation>导出已取消：未写入任何文件</translation>
    </message>
</context>
</TS>
