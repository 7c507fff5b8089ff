// The agent conversation view: the session's agent transcript as it arrives (a long poll on
// /_view/agent/events: the doorman answers at the next entry, or empty after ~20 s), its state,
// runs and restarts, and a box whose text goes to the agent's standard input (/_view/agent/input).
// The agent runs in the engine's keeping: closing this page stops nothing.
'use strict';
(function () {
  const log = document.getElementById('log');
  const stateLabel = document.getElementById('state');
  const runsLabel = document.getElementById('runs');
  const commandLabel = document.getElementById('command');
  const form = document.getElementById('send');
  const input = document.getElementById('input');
  const sendButton = document.getElementById('sendButton');
  const problem = document.getElementById('problem');

  let after = 0; // the newest entry shown
  let shownRun = 0;
  let state = '';
  let retryMs = 1000;

  function atBottom() {
    return log.scrollHeight - log.scrollTop - log.clientHeight < 40;
  }

  function line(kind, text) {
    const div = document.createElement('div');
    div.className = 'entry ' + kind;
    div.textContent = text;
    log.appendChild(div);
    return div;
  }

  function show(entry) {
    if (entry.run !== shownRun && entry.run > 0) {
      shownRun = entry.run;
      line('run', entry.run === 1 ? 'run 1' : 'run ' + entry.run + ' (restart ' + (entry.run - 1) + ')');
    }
    const d = line(entry.kind, entry.kind === 'in' ? '› ' + entry.text : entry.text);
    d.title = new Date(entry.at).toLocaleString();
  }

  function header(v) {
    state = v.state;
    stateLabel.textContent = v.state + (v.reason && v.state !== 'running' ? ': ' + v.reason : '');
    stateLabel.dataset.state = v.state;
    runsLabel.textContent = v.runs > 0
      ? 'run ' + v.runs + ' · ' + v.restarts + (v.restarts === 1 ? ' restart' : ' restarts')
        + (v.runs > 1 || v.state !== 'running' ? ' · last exit ' + v.lastExitCode : '')
      : '';
    commandLabel.textContent = v.command || '';
    sendButton.disabled = v.state !== 'running';
  }

  async function poll() {
    for (;;) {
      let r;
      try {
        r = await fetch('/_view/agent/events?after=' + after, { cache: 'no-store' });
      } catch (e) {
        r = null;
      }
      if (!r || !r.ok) {
        const why = !r ? 'the engine cannot be reached'
          : r.status === 404 ? 'no agent runs in this session (yet)'
            : 'the engine answered ' + r.status;
        stateLabel.textContent = 'Disconnected: ' + why + '; trying again in ' + Math.round(retryMs / 1000) + ' s';
        stateLabel.dataset.state = 'disconnected';
        sendButton.disabled = true;
        await new Promise((done) => setTimeout(done, retryMs));
        retryMs = Math.min(retryMs * 2, 15000);
        continue;
      }
      retryMs = 1000;
      const v = await r.json();
      if (v.last < after) {
        // A new transcript (the engine started again): it begins anew.
        line('state', 'the engine restarted: its transcript starts again here');
        after = 0;
        shownRun = 0;
        continue;
      }
      const follow = atBottom();
      if (v.truncated) line('state', '… earlier output is no longer kept');
      for (const e of v.entries) {
        show(e);
        after = Math.max(after, e.seq);
      }
      header(v);
      if (follow) log.scrollTop = log.scrollHeight;
    }
  }

  async function send() {
    const text = input.value;
    if (!text || sendButton.disabled) return;
    sendButton.disabled = true;
    problem.textContent = '';
    try {
      const r = await fetch('/_view/agent/input', {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({ text: text }),
      });
      if (r.ok) {
        input.value = '';
      } else {
        const body = await r.json().catch(() => ({}));
        problem.textContent = 'Not sent: ' + ((body.error && body.error.message) || 'the engine answered ' + r.status);
      }
    } catch (e) {
      problem.textContent = 'Not sent: the engine cannot be reached';
    } finally {
      sendButton.disabled = state !== 'running';
      input.focus();
    }
  }

  form.addEventListener('submit', (ev) => { ev.preventDefault(); send(); });
  input.addEventListener('keydown', (ev) => {
    if (ev.key === 'Enter' && !ev.shiftKey && !ev.isComposing) {
      ev.preventDefault();
      send();
    }
  });
  input.focus();
  poll();
}());
