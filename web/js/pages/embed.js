// embed.html?demo=<id>&…: open demo <id> chrome-less (its lesson page with embed=1), passing every
// other parameter on. An unknown or missing demo is explained here, with the list to choose from.
import { DEMOS } from '../site/demos.js';

const params = new URLSearchParams(location.search);
const demo = params.get('demo');
const known = DEMOS.find((d) => d.id === demo);
if (known) {
  params.delete('demo');
  params.delete('embed');
  const rest = params.toString();
  location.replace(`${known.id}.html?embed=1${rest ? `&${rest}` : ''}`);
} else {
  const message = document.getElementById('embed-error');
  message.textContent = demo === null
    ? 'Which demo? Add demo=<id> to the address, with one of the ids below.'
    : `There is no demo “${demo}”. Use one of the ids below.`;
  const list = document.getElementById('embed-demos');
  for (const { id, title } of DEMOS) {
    const item = document.createElement('li');
    const link = document.createElement('a');
    link.href = `embed.html?demo=${id}`;
    link.textContent = id;
    item.append(link, ` — ${title}`);
    list.append(item);
  }
  document.body.dataset.ready = 'true';
}
