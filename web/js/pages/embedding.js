// "Use these demos in your course": the snippets point at this site, and the live example embeds the
// chosen demo, reads its parameter table through the message API (describe) and drives it.
import { DEMOS } from '../site/demos.js';

const site = new URL('.', location.href).href.replace(/\/$/, '');
for (const code of document.querySelectorAll('pre code')) {
  code.textContent = code.textContent.replaceAll('SITE_ORIGIN', location.origin).replaceAll('SITE', site);
}

const select = document.getElementById('docs-demo');
const frame = document.getElementById('docs-frame');
const log = document.getElementById('docs-log');
const table = document.querySelector('#docs-parameters tbody');
for (const { id, title } of DEMOS) select.add(new Option(`${title} (${id})`, id));

let nextId = 1;
const pending = new Map();

/** Send a request to the embedded demo; resolves to the reply. */
function request(action, fields = {}) {
  const id = nextId++;
  return new Promise((resolve) => {
    pending.set(id, resolve);
    frame.contentWindow.postMessage({ phyxel: 1, id, action, ...fields }, location.origin);
  });
}

function show(reply) {
  log.textContent = JSON.stringify(reply, null, 1);
}

function fillTable({ parameters }) {
  table.replaceChildren();
  for (const parameter of parameters) {
    const row = table.insertRow();
    const name = document.createElement('code');
    name.textContent = parameter.name;
    row.insertCell().append(name);
    row.insertCell().textContent = parameter.label;
    row.insertCell().textContent = parameter.accepts;
    row.insertCell().textContent = parameter.default;
  }
  document.body.dataset.parameters = select.value;
}

window.addEventListener('message', async (event) => {
  const data = event.data;
  if (event.origin !== location.origin || event.source !== frame.contentWindow || data?.phyxel !== 1) return;
  if (data.event === 'ready') {
    const reply = await request('describe');
    if (reply.ok) fillTable(reply.result);
    show(reply);
  } else if ('ok' in data) {
    pending.get(data.id)?.(data);
    pending.delete(data.id);
  }
});

function load() {
  table.replaceChildren();
  delete document.body.dataset.parameters;
  frame.src = `embed.html?demo=${select.value}&origin=${encodeURIComponent(location.origin)}`;
}

select.addEventListener('change', load);
for (const button of document.querySelectorAll('.docs-actions [data-action]')) {
  button.addEventListener('click', async () => show(await request(button.dataset.action)));
}
select.value = new URLSearchParams(location.search).get('demo') ?? 'pbd';
if (!select.value) select.value = 'pbd';
load();
document.body.dataset.ready = 'true';
