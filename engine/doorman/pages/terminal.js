// The terminal view. xterm.js draws; behind it runs, when it can start, a pseudo-terminal in the
// sandbox (the PTY relay: a WebSocket, docs/protocol.md "The PTY relay"), where full-screen
// programs, Ctrl-C and resizing work. When the relay cannot start, the line mode: each line typed
// runs in this view's own shell session in the sandbox (execd's /session API), its output
// streamed back as SSE. The bar above the terminal says which one runs.
'use strict';
(function () {
  const status = document.getElementById('status');
  const term = new Terminal({ cursorBlink: true, fontSize: 14 });
  term.open(document.getElementById('terminal'));
  term.focus();
  window.isolationTerminal = term;

  function setMode(mode, text) {
    window.isolationTerminalMode = mode; // for tests: "starting", "pty", "ended", "line"
    status.dataset.mode = mode;
    status.textContent = text;
  }

  // The grid that fits the window, from the size of one cell of the terminal's font.
  function fit() {
    const probe = document.createElement('span');
    probe.style.cssText = 'position:absolute;visibility:hidden;white-space:pre;font-size:'
      + term.options.fontSize + 'px;font-family:' + term.options.fontFamily;
    probe.textContent = 'W'.repeat(50);
    document.body.appendChild(probe);
    const cell = probe.getBoundingClientRect();
    probe.remove();
    const box = document.getElementById('terminal').getBoundingClientRect();
    const cols = Math.max(20, Math.min(1000, Math.floor(box.width / (cell.width / 50)) - 1));
    const rows = Math.max(5, Math.min(1000, Math.floor(box.height / cell.height)));
    if (cols !== term.cols || rows !== term.rows) term.resize(cols, rows);
  }
  fit();
  let fitting = 0;
  window.addEventListener('resize', () => {
    clearTimeout(fitting);
    fitting = setTimeout(fit, 100);
  });

  // ---- The pseudo-terminal ----
  const encoder = new TextEncoder();

  function openPty() {
    return new Promise((resolve) => {
      const url = new URL('/_view/terminal/pty', location.href);
      url.protocol = location.protocol === 'https:' ? 'wss:' : 'ws:';
      url.searchParams.set('cols', term.cols);
      url.searchParams.set('rows', term.rows);
      let ws;
      try { ws = new WebSocket(url); } catch (_) { resolve(null); return; }
      ws.binaryType = 'arraybuffer';
      ws.onopen = () => resolve(ws);
      ws.onclose = () => resolve(null); // before open: refused (after open, replaced below)
    });
  }

  function message(type, payload) {
    const m = new Uint8Array(1 + payload.length);
    m[0] = type;
    m.set(payload, 1);
    return m;
  }

  let pty = null; // the open WebSocket
  let early = ''; // typed while the terminal starts: not lost, sent once it runs
  term.onData((data) => {
    if (pty) pty.send(message(0, encoder.encode(data)));
    else if (lineMode) lineInput(data);
    else if (window.isolationTerminalMode === 'starting') early += data;
    else if (window.isolationTerminalMode === 'ended' && data === '\r') startPty();
  });
  term.onBinary((data) => {
    if (!pty) return;
    const bytes = new Uint8Array(data.length);
    for (let i = 0; i < data.length; ++i) bytes[i] = data.charCodeAt(i) & 0xff;
    pty.send(message(0, bytes));
  });
  term.onResize(({ cols, rows }) => {
    if (pty) pty.send(message(1, new Uint8Array([cols >> 8, cols & 0xff, rows >> 8, rows & 0xff])));
  });

  async function startPty() {
    setMode('starting', 'Starting a terminal in the sandbox…');
    // Twice: a relay that exited when idle is started anew at the next attempt.
    let ws = await openPty();
    if (!ws) ws = await openPty();
    if (!ws) {
      startLineMode();
      return;
    }
    pty = ws;
    setMode('pty', 'Terminal in the sandbox');
    ws.onmessage = (e) => term.write(new Uint8Array(e.data));
    if (early) ws.send(message(0, encoder.encode(early)));
    early = '';
    ws.onclose = (e) => {
      pty = null;
      const why = e.reason || (e.code === 1000 ? 'closed' : 'connection lost (' + e.code + ')');
      term.write('\r\n\x1b[2m[' + why + ' — press Enter for a new shell]\x1b[0m\r\n');
      setMode('ended', 'The shell ended: ' + why);
    };
  }

  // ---- The line mode ----
  let lineMode = false;
  let line = '';
  let busy = false;
  const prompt = () => term.write('$ ');

  function handle(event) {
    for (const l of event.split('\n')) {
      if (!l.startsWith('data:')) continue;
      let e;
      try { e = JSON.parse(l.slice(5)); } catch (_) { continue; }
      if (e.type === 'stdout' || e.type === 'stderr') term.write(e.text.replace(/\r?\n/g, '\r\n'));
      else if (e.type === 'error') term.writeln('[exit ' + ((e.error && e.error.evalue) || '?') + ']');
    }
  }

  async function run(command) {
    busy = true;
    try {
      const r = await fetch('/_view/terminal/run', {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({ command: command }),
      });
      if (!r.ok) { term.writeln('[the sandbox answered ' + r.status + ']'); return; }
      const reader = r.body.getReader();
      const decoder = new TextDecoder();
      let buffer = '';
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        buffer += decoder.decode(value, { stream: true });
        let i;
        while ((i = buffer.indexOf('\n\n')) >= 0) {
          handle(buffer.slice(0, i));
          buffer = buffer.slice(i + 2);
        }
      }
      if (buffer) handle(buffer);
    } catch (err) {
      term.writeln('[' + err + ']');
    } finally {
      busy = false;
    }
  }

  async function lineInput(data) {
    if (busy) return;
    for (const ch of data) {
      if (ch === '\r') {
        term.write('\r\n');
        const command = line;
        line = '';
        if (command.trim()) await run(command);
        prompt();
      } else if (ch === '\u007f') {
        if (line.length) { line = line.slice(0, -1); term.write('\b \b'); }
      } else if (ch >= ' ') {
        line += ch;
        term.write(ch);
      }
    }
  }

  function startLineMode() {
    lineMode = true;
    setMode('line', 'Line mode: the sandbox\'s terminal did not start, so each line runs on its own '
      + '(no full-screen programs, no Ctrl-C)');
    term.writeln('Isolation terminal, line mode: each line runs in this view\'s shell in the sandbox.');
    prompt();
    if (early) lineInput(early);
    early = '';
  }

  startPty();
})();
