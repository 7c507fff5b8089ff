// The terminal view: xterm.js draws; each line typed runs in this view's own shell session in
// the sandbox (execd's /session API through the doorman), its output streamed back as SSE.
'use strict';
(function () {
  const term = new Terminal({ convertEol: true, cursorBlink: true, fontSize: 14 });
  term.open(document.getElementById('terminal'));
  term.focus();
  window.isolationTerminal = term;
  let line = '';
  let busy = false;
  const prompt = () => term.write('$ ');

  function handle(event) {
    for (const l of event.split('\n')) {
      if (!l.startsWith('data:')) continue;
      let e;
      try { e = JSON.parse(l.slice(5)); } catch (_) { continue; }
      if (e.type === 'stdout' || e.type === 'stderr') term.write(e.text);
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

  term.writeln('Isolation terminal: each line runs in this view\'s shell in the sandbox.');
  prompt();
  term.onData(async (data) => {
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
  });
})();
