// The files view: lists a directory under /workspace (execd's /directories/list through the
// doorman), links files for download, uploads into the directory shown.
'use strict';
(function () {
  const root = '/workspace';
  const body = document.querySelector('#entries tbody');
  const where = document.getElementById('where');
  const status = document.getElementById('status');
  const current = () => decodeURIComponent(location.hash.slice(1)) || root;
  const q = (p) => encodeURIComponent(p);

  function row(cells) {
    const tr = document.createElement('tr');
    for (const c of cells) {
      const td = document.createElement('td');
      if (typeof c === 'string') td.textContent = c; else td.appendChild(c);
      tr.appendChild(td);
    }
    body.appendChild(tr);
  }

  function link(text, href) {
    const a = document.createElement('a');
    a.textContent = text;
    a.href = href;
    return a;
  }

  async function list() {
    const dir = current();
    where.textContent = dir;
    body.textContent = '';
    const r = await fetch('/_view/files/list?path=' + q(dir));
    if (!r.ok) { row(['cannot list ' + dir + ' (' + r.status + ')', '', '']); return; }
    const entries = await r.json();
    if (dir !== root) row([link('..', '#' + q(dir.slice(0, dir.lastIndexOf('/')) || root)), '', '']);
    for (const e of entries) {
      const name = e.path.slice(e.path.lastIndexOf('/') + 1);
      const target = e.type === 'directory' ? '#' + q(e.path) : '/_view/files/download?path=' + q(e.path);
      const a = link(name + (e.type === 'directory' ? '/' : ''), target);
      if (e.type !== 'directory') a.setAttribute('download', name);
      row([a, e.type === 'directory' ? '' : String(e.size), e.modified_at || '']);
    }
  }

  document.getElementById('upload').addEventListener('submit', async (ev) => {
    ev.preventDefault();
    const file = document.getElementById('file').files[0];
    if (!file) return;
    status.textContent = 'uploading…';
    // The file's bytes as they are, typed as such: the doorman takes no type a form could send.
    const r = await fetch('/_view/files/upload?path=' + q(current() + '/' + file.name), {
      method: 'PUT',
      headers: { 'Content-Type': 'application/octet-stream' },
      body: file,
    });
    status.textContent = r.ok ? 'uploaded ' + file.name : 'upload failed (' + r.status + ')';
    list();
  });
  window.addEventListener('hashchange', list);
  list();
})();
