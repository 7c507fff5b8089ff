<?xml version="1.0" encoding="utf-8"?>
<!DOCTYPE TS>
<TS version="2.1" language="zh_CN">
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
    <message>
        <source>Cannot start the engine: %1</source>
        <translation>无法启动引擎：%1</translation>
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
        <source>Workspace</source>
        <translation>工作区</translation>
    </message>
    <message>
        <source>Session</source>
        <translation>会话</translation>
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
        <source>&amp;Show:</source>
        <translation>显示(&amp;S)：</translation>
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
        <source>Sessions</source>
        <translation>会话</translation>
    </message>
    <message>
        <source>Every session on this computer: its workspace, state, commits ahead of and behind main, the last save, and actions.</source>
        <translation>此计算机上的所有会话：工作区、状态、领先和落后于 main 的提交、上次保存以及操作。</translation>
    </message>
    <message>
        <source>&amp;Sessions</source>
        <translation>会话(&amp;S)</translation>
    </message>
    <message>
        <source>Changes</source>
        <translation>更改</translation>
    </message>
    <message>
        <source>The files a session touched, with a diff of each, to save all of them or a selection.</source>
        <translation>会话修改过的文件及各自的差异，可全部保存或只保存所选文件。</translation>
    </message>
    <message>
        <source>&amp;Changes</source>
        <translation>更改(&amp;C)</translation>
    </message>
    <message>
        <source>Conflicts</source>
        <translation>冲突</translation>
    </message>
    <message>
        <source>Files in conflict after a sync, how many conflict regions each has and which save the other side came from.</source>
        <translation>同步后存在冲突的文件、每个文件的冲突区域数量，以及另一方来自哪次保存。</translation>
    </message>
    <message>
        <source>C&amp;onflicts</source>
        <translation>冲突(&amp;O)</translation>
    </message>
    <message>
        <source>Warm cache</source>
        <translation>预热缓存</translation>
    </message>
    <message>
        <source>The workspaces cached on this computer for fast launches: size, last use, and eviction.</source>
        <translation>为快速启动而缓存在此计算机上的工作区：大小、上次使用时间和清除。</translation>
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
        <source>Not available yet in this version.</source>
        <translation>此版本尚不可用。</translation>
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
        <source>The hub URL must be an http or https URL</source>
        <translation>中心 URL 必须是 http 或 https URL</translation>
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
        <source>&amp;Restart runtime</source>
        <translation>重启运行时(&amp;R)</translation>
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
        <source>&amp;Quit</source>
        <translation>退出(&amp;Q)</translation>
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
        <source>the hub URL is not valid: %1</source>
        <translation>中心 URL 无效：%1</translation>
    </message>
    <message>
        <source>the hub URL must be https:// or wss://: %1</source>
        <translation>中心 URL 必须是 https:// 或 wss://：%1</translation>
    </message>
    <message>
        <source>refusing an unencrypted tunnel to %1: use wss:// (ws:// is for loopback hubs only)</source>
        <translation>拒绝建立到 %1 的未加密隧道：请使用 wss://（ws:// 仅用于本机中心）</translation>
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
        <source>the hub sent a text message on the tunnel</source>
        <translation>中心在隧道上发送了文本消息</translation>
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
</context>
</TS>
