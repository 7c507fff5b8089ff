// The editor view: a file tree of /workspace (execd's /directories/list through the doorman), and
// Ace for the file opened (highlighting by its name). Save writes it back with If-Match naming the
// SHA-256 of the version opened: the doorman refuses (412) when the file changed on disk since,
// and nothing is overwritten; the page then says so and keeps the edits.
'use strict';
(function () {
  const root = '/workspace';
  const maxBytes = 5 * 1024 * 1024;
  // The modes compiled into the engine (engine/doorman/ace.cmake); others open as plain text.
  const modes = new Set(['c_cpp', 'css', 'dockerfile', 'golang', 'html', 'java', 'javascript', 'json',
    'makefile', 'markdown', 'php', 'python', 'ruby', 'rust', 'sh', 'sql', 'text', 'toml', 'typescript',
    'xml', 'yaml']);
  const q = (p) => encodeURIComponent(p);
  const tree = document.getElementById('tree');
  const pathLabel = document.getElementById('path');
  const saveButton = document.getElementById('save');
  const status = document.getElementById('status');

  ace.config.set('basePath', '/_view/assets/ace');
  const editor = ace.edit('editor', { useWorker: false, fontSize: 14, showPrintMargin: false });
  editor.setTheme('ace/theme/tomorrow_night');
  const modelist = ace.require('ace/ext/modelist');

  let opened = null; // { path, version } of the file in the editor
  let clean = true;

  function say(text, kind) {
    status.textContent = text;
    status.dataset.kind = kind || '';
  }

  async function sha256(bytes) {
    const digest = new Uint8Array(await crypto.subtle.digest('SHA-256', bytes));
    return Array.from(digest, (b) => b.toString(16).padStart(2, '0')).join('');
  }

  async function list(dir, into) {
    const r = await fetch('/_view/files/list?path=' + q(dir));
    if (!r.ok) { into.textContent = 'cannot list ' + dir + ' (' + r.status + ')'; return; }
    const entries = (await r.json()).sort((a, b) =>
      (a.type === 'directory' ? 0 : 1) - (b.type === 'directory' ? 0 : 1) || a.path.localeCompare(b.path));
    const ul = document.createElement('ul');
    for (const e of entries) {
      const li = document.createElement('li');
      const name = e.path.slice(e.path.lastIndexOf('/') + 1);
      const a = document.createElement('a');
      a.href = '#';
      a.textContent = name + (e.type === 'directory' ? '/' : '');
      a.dataset.path = e.path;
      if (e.type === 'directory') {
        a.onclick = async (ev) => {
          ev.preventDefault();
          if (li.querySelector('ul')) li.querySelector('ul').remove();
          else await list(e.path, li);
        };
      } else if (e.type === 'file') {
        a.onclick = (ev) => { ev.preventDefault(); open(e.path); };
      }
      li.appendChild(a);
      ul.appendChild(li);
    }
    into.appendChild(ul);
  }

  async function open(path) {
    if (!clean && !confirm('Discard the changes to ' + opened.path + '?')) return;
    say('Opening…');
    const r = await fetch('/_view/files/download?path=' + q(path));
    if (!r.ok) { say('Cannot open ' + path + ' (' + r.status + ')', 'error'); return; }
    const bytes = await r.arrayBuffer();
    if (bytes.byteLength > maxBytes) { say(path + ' is over 5 MiB: not opened here', 'error'); return; }
    let text;
    try {
      text = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
    } catch (_) {
      say(path + ' is not UTF-8 text: not opened here', 'error');
      return;
    }
    const mode = modelist.getModeForPath(path).name;
    editor.session.setMode('ace/mode/' + (modes.has(mode) ? mode : 'text'));
    editor.setValue(text, -1);
    editor.session.getUndoManager().reset();
    opened = { path: path, version: await sha256(bytes) };
    clean = true;
    pathLabel.textContent = path;
    saveButton.disabled = false;
    say('');
    editor.focus();
  }

  async function save() {
    if (!opened) return;
    const bytes = new TextEncoder().encode(editor.getValue());
    say('Saving…');
    const r = await fetch('/_view/files/upload?path=' + q(opened.path), {
      method: 'PUT',
      headers: { 'Content-Type': 'application/octet-stream', 'If-Match': '"sha256:' + opened.version + '"' },
      body: bytes,
    });
    if (r.status === 412) {
      say('Not saved: ' + opened.path + ' changed on disk since you opened it. Your edits are still here; '
        + 'copy them, then open the file again.', 'conflict');
      return false;
    }
    if (!r.ok) { say('Not saved (' + r.status + ')', 'error'); return false; }
    opened.version = await sha256(bytes);
    clean = true;
    say('Saved', 'ok');
    return true;
  }

  editor.session.on('change', () => { if (opened) { clean = false; say('Edited'); } });
  editor.commands.addCommand({ name: 'save', bindKey: { win: 'Ctrl-S', mac: 'Command-S' }, exec: save });
  saveButton.onclick = save;
  window.addEventListener('beforeunload', (e) => { if (!clean) e.preventDefault(); });
  window.isolationEditor = { editor: editor, open: open, save: save, opened: () => opened && opened.path };

  list(root, tree);
})();
