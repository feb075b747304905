// The live operations page: follows GET /admin/events (read with fetch, so that a bearer token can go with it),
// swaps in the fragments the gateway renders, prepends supervision events, and sends the actions it confirms.
(() => {
  'use strict';
  const MAX_EVENTS = 500;
  const status = document.getElementById('status');
  const notice = document.getElementById('notice');
  const events = document.getElementById('events');
  const tokenForm = document.getElementById('token-form');
  let token = sessionStorage.getItem('mcp-supervisor-admin-token') || '';
  let lastEventId = events.firstElementChild ? events.firstElementChild.dataset.seq : '';
  let retryMillis = 1000;

  function headers(extra) {
    const all = Object.assign({}, extra);
    if (token) all.Authorization = 'Bearer ' + token;
    return all;
  }

  function setStatus(state, text) {
    status.dataset.state = state;
    status.textContent = text;
  }

  function fromHtml(html) {
    const template = document.createElement('template');
    template.innerHTML = html;
    return template.content;
  }

  function onEvent(type, data) {
    const message = JSON.parse(data);
    if (type === 'view') {
      for (const id of ['cluster', 'servers', 'sessions']) {
        const section = document.getElementById(id);
        if (section && section.innerHTML !== message[id]) section.innerHTML = message[id];
      }
      setStatus('live', 'live · ' + new Date(message.at).toLocaleTimeString());
    } else if (type === 'supervision') {
      if (events.querySelector('[data-seq="' + message.seq + '"]')) return;
      events.prepend(fromHtml(message.html));
      while (events.childElementCount > MAX_EVENTS) events.lastElementChild.remove();
    }
  }

  async function follow() {
    const response = await fetch('/admin/events', {
      headers: headers(lastEventId ? { 'Last-Event-ID': lastEventId } : {}),
      cache: 'no-store',
    });
    if (response.status === 401 || response.status === 403) {
      tokenForm.hidden = false;
      setStatus('snapshot', response.status === 401 ? 'token needed' : 'refused');
      return false;
    }
    if (!response.ok || !response.body) throw new Error('HTTP ' + response.status);
    retryMillis = 1000;
    const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
    let buffer = '';
    for (;;) {
      const { value, done } = await reader.read();
      if (done) return true;
      buffer += value;
      let end;
      while ((end = buffer.indexOf('\n\n')) >= 0) {
        const block = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        let type = 'message', data = '', id = null;
        for (const line of block.split('\n')) {
          if (line.startsWith('event: ')) type = line.slice(7);
          else if (line.startsWith('data: ')) data += line.slice(6);
          else if (line.startsWith('id: ')) id = line.slice(4);
        }
        if (id !== null) lastEventId = id;
        if (data) onEvent(type, data);
      }
    }
  }

  async function run() {
    for (;;) {
      try {
        if (!(await follow())) return;
        setStatus('reconnecting', 'reconnecting…');
      } catch (error) {
        setStatus('reconnecting', 'gateway unreachable, retrying…');
      }
      await new Promise((resume) => setTimeout(resume, retryMillis));
      retryMillis = Math.min(retryMillis * 2, 10000);
    }
  }

  document.addEventListener('click', async (click) => {
    const button = click.target.closest('button[data-action]');
    if (!button || !window.confirm(button.dataset.confirm)) return;
    button.disabled = true;
    try {
      const response = await fetch(button.dataset.action, {
        method: 'POST',
        headers: headers({ 'Content-Type': 'application/json' }),
        body: JSON.stringify({ reason: 'from the operations page' }),
      });
      const answer = await response.json().catch(() => ({}));
      notice.textContent = answer.message || (response.ok ? 'done' : 'refused: HTTP ' + response.status);
    } catch (error) {
      notice.textContent = 'not sent: ' + error.message;
    }
  });

  tokenForm.addEventListener('submit', (submit) => {
    submit.preventDefault();
    token = document.getElementById('token').value.trim();
    sessionStorage.setItem('mcp-supervisor-admin-token', token);
    tokenForm.hidden = true;
    run();
  });

  if (document.body.dataset.token === 'needed' && !token) {
    tokenForm.hidden = false;
    setStatus('snapshot', 'token needed');
  } else {
    run();
  }
})();
