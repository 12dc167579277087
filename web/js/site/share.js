// URL state, "Copy link", the "Embed" snippet, and the chrome of an embedded demo.
//
// Every control of a page is also a URL parameter, under the public name it declares (`param`, see
// ControlPanel's registry; never derived from the markup):
// `pbd.html?solver=xpbd&compliance=0.001` opens the PBD lesson with XPBD and that compliance. A few
// names are the page's own, for embedding (the same on every page):
//   embed=1        chrome-less view for iframes (embed.html?demo=… redirects here with it)
//   controls=0     hide the controls (embedded: the panel; readouts stay unless readouts=0)
//   readouts=0     hide the readouts
//   paused=1       open paused (a simulation)
//   origin=…       comma-separated origins allowed to drive the demo by postMessage (default: any;
//                  entries that are not origins are refused and left out, so the list fails closed)
import { clip, parseSwitch } from './controls.js';

/** The demo's id: the lesson page's file name without `.html` (`pbd.html` → `pbd`). */
export function demoId() {
  return location.pathname.split('/').pop().replace(/\.html$/, '') || 'index';
}

/**
 * The page's own URL parameters (not controls), with how each is checked. A Map: a name is looked up
 * among these five only, never among an object's inherited properties (`?constructor=1`).
 */
export const PAGE_PARAMETERS = new Map([
  ['embed', { describe: '1 for the chrome-less view (what embed.html opens)', parse: parseSwitch }],
  ['controls', { describe: '0 hides the controls', parse: parseSwitch }],
  ['readouts', { describe: '0 hides the readouts', parse: parseSwitch }],
  ['paused', { describe: '1 opens the simulation paused', parse: parseSwitch }],
  ['origin', { describe: 'comma-separated origins (scheme://host[:port]) allowed to send messages', parse: (text) => parseOrigins(text).origins }],
]);

/**
 * One origin as the browser writes `MessageEvent.origin`: `https://School.example:443/` →
 * `https://school.example` (scheme and host in lower case, the scheme's default port dropped, one
 * trailing slash allowed). Returns {ok: true, origin} or {ok: false, message}: anything with a path,
 * query, fragment, user name, or another scheme than http(s) is not an origin.
 */
export function parseOrigin(entry) {
  const text = String(entry).trim();
  const refuse = (why) => ({ ok: false, message: `“${clip(text)}” is not an origin (${why}).` });
  if (!/^https?:\/\//i.test(text)) return refuse('it must start with https:// or http://');
  let url;
  try {
    url = new URL(text);
  } catch {
    return refuse('it does not parse as scheme://host[:port]');
  }
  if (url.username || url.password) return refuse('no user name or password');
  if (url.search || url.hash || text.includes('?') || text.includes('#')) return refuse('no query or fragment');
  // `new URL` turns an empty path into '/': only that, or one written trailing slash, is allowed.
  const rest = text.replace(/^https?:\/\/[^/]*/i, '');
  if (rest !== '' && rest !== '/') return refuse(`no path: “${clip(rest)}”`);
  return { ok: true, origin: url.origin };
}

/**
 * `https://a.example, http://localhost:8000` → { origins: ['https://a.example',
 * 'http://localhost:8000'], refused: [] }. Entries that are not origins are refused, with the reason,
 * and left out: the list never grows because of them, and an empty list allows no page (it fails
 * closed; no entry can turn it off).
 */
export function parseOrigins(text) {
  const origins = [];
  const refused = [];
  for (const entry of String(text).split(',').map((s) => s.trim()).filter(Boolean)) {
    const parsed = parseOrigin(entry);
    if (!parsed.ok) refused.push(parsed.message);
    else if (!origins.includes(parsed.origin)) origins.push(parsed.origin);
  }
  if (origins.length === 0 && refused.length === 0) refused.push('the list is empty.');
  return { origins, refused };
}

/** Read one of the page's own parameters from `search`: its parsed value, or `fallback`. */
function pageParameter(name, fallback, search = location.search) {
  const text = new URLSearchParams(search).get(name);
  if (text === null) return fallback;
  const value = PAGE_PARAMETERS.get(name).parse(text);
  return value === null ? fallback : value;
}

/** Options of the embedded view, or null when the page is not embedded. */
export function embedOptions() {
  if (!document.documentElement.classList.contains('embed')) return null;
  return { controls: pageParameter('controls', true), readouts: pageParameter('readouts', true) };
}

/**
 * Origins allowed to send messages, from every `origin=` in `search` (null: no `origin=`, any page
 * may). Entries that are not origins are left out, so a list of only bad entries allows none.
 */
export function allowedOrigins(search = location.search) {
  const texts = new URLSearchParams(search).getAll('origin');
  if (texts.length === 0) return null;
  return parseOrigins(texts.join(',')).origins;
}

/** `text` as a notice quotes it: at most 80 characters (controls.js's rule, shared). */
export { clip };

/**
 * What the URL's parameters ask, checked but not applied: a list of { name, text, entry } for the
 * controls to set, in the URL's order, and { key, text } notices for names that are neither a control
 * nor one of the page's own, and for the page's own whose values are refused. `registry` is the
 * ParameterRegistry (its names are a Map's keys).
 */
export function readUrlState(registry, search = location.search) {
  const settings = [];
  const notices = [];
  for (const [name, text] of new URLSearchParams(search)) {
    const own = PAGE_PARAMETERS.get(name);
    if (own) {
      if (name === 'origin') {
        const { refused } = parseOrigins(text);
        // Every origin= of the URL together (what the page accepts), not this one's alone.
        const allowed = allowedOrigins(search);
        if (refused.length) {
          notices.push({
            key: `url-${name}`,
            text: `URL parameter origin=${clip(text)}: ${refused.join(' ')} Messages are accepted only from ${allowed.length ? allowed.join(', ') : 'no page'}.`,
          });
        }
      } else if (own.parse(text) === null) {
        notices.push({ key: `url-${name}`, text: `URL parameter ${name}=${clip(text)} was ignored (${name}: ${own.describe}).` });
      }
      continue;
    }
    const entry = registry.get(name);
    if (!entry) {
      notices.push({
        key: `url-${name}`,
        text: `Unknown URL parameter “${clip(name)}” was ignored. This demo's parameters are: ${registry.names().join(', ')}.`,
      });
      continue;
    }
    settings.push({ name, text, entry });
  }
  return { settings, notices };
}

/**
 * Apply the URL's parameters to the page's controls, in the URL's order. An unknown name or a
 * refused value is explained in a notice (the control keeps its default); the demo runs regardless.
 */
export function applyUrlState(page) {
  const { settings, notices } = readUrlState(page.controls.registry);
  for (const { key, text } of notices) page.notice(key, text, 'warning');
  for (const { name, text, entry } of settings) {
    const refused = entry.set(text);
    if (refused) {
      page.notice(
        `url-${name}`,
        `URL parameter ${name}=${clip(text)} was refused: ${refused.replace(/\.?$/, '.')} Using ${clip(entry.get())}.`,
        'warning',
      );
    }
  }
  if (page.simulation && pageParameter('paused', false)) page.setRunning(false);
}

/** The query string that reproduces the page's current set-up (only values that differ from the defaults). */
export function stateQuery(page, extra = {}) {
  const params = new URLSearchParams(extra);
  for (const [name, text] of Object.entries(page.controls.registry.values({ changedOnly: true }))) params.set(name, text);
  return params.toString();
}

/** The link that reproduces the current set-up on the full lesson page. */
export function lessonLink(page) {
  const query = stateQuery(page);
  return new URL(`${demoId()}.html${query ? `?${query}` : ''}`, location.href).href;
}

/** The iframe snippet for the current set-up. */
export function iframeSnippet(page, { controls = true, readouts = true } = {}) {
  const extra = { demo: demoId() };
  if (!controls) extra.controls = '0';
  if (!readouts) extra.readouts = '0';
  const src = new URL(`embed.html?${stateQuery(page, extra)}`, location.href).href;
  const title = document.querySelector('h1')?.textContent.trim() ?? 'Phyxel demo';
  return `<iframe src="${escapeAttribute(src)}" title="${escapeAttribute(`${title} — Phyxel`)}" width="960" height="540" `
    + 'style="border:0; max-width:100%" loading="lazy" allow="fullscreen"></iframe>';
}

/** The custom-element snippet for the current set-up. */
export function elementSnippet(page) {
  const attributes = Object.entries(page.controls.registry.values({ changedOnly: true }))
    .map(([name, text]) => ` ${name}="${escapeAttribute(text)}"`)
    .join('');
  const module = new URL('js/phyxel-demo.js', location.href).href;
  return `<script type="module" src="${escapeAttribute(module)}"></script>\n`
    + `<phyxel-demo demo="${demoId()}"${attributes}></phyxel-demo>`;
}

function escapeAttribute(text) {
  return String(text).replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;');
}

/** Copy `text` to the clipboard; false where the browser refuses (no permission, insecure origin). */
async function copyText(text) {
  try {
    await navigator.clipboard.writeText(text);
    return true;
  } catch {
    return false;
  }
}

/** "Copy link" and "Embed" under the panel of a lesson page. */
export function addShareButtons(page) {
  const share = document.createElement('div');
  share.className = 'buttons share';
  share.innerHTML = `
    <button type="button" id="copy-link" title="A link that opens this page with the current settings">Copy link</button>
    <button type="button" id="embed-button" aria-haspopup="dialog" title="Put this demo in your own page">Embed</button>
    <span id="share-status" class="share-status" role="status" aria-live="polite"></span>`;
  page.panel.append(share);
  const status = share.querySelector('#share-status');
  share.querySelector('#copy-link').addEventListener('click', async () => {
    const link = lessonLink(page);
    history.replaceState(null, '', link);
    status.textContent = (await copyText(link)) ? 'Link copied.' : 'The address bar now holds the link.';
  });
  share.querySelector('#embed-button').addEventListener('click', () => showEmbedDialog(page));
}

/** The dialog with the iframe and custom-element snippets for the current set-up. */
function showEmbedDialog(page) {
  let dialog = document.getElementById('embed-dialog');
  if (!dialog) {
    dialog = document.createElement('dialog');
    dialog.id = 'embed-dialog';
    dialog.className = 'embed-dialog';
    dialog.setAttribute('aria-labelledby', 'embed-dialog-title');
    dialog.innerHTML = `
      <h2 id="embed-dialog-title">Embed this demo</h2>
      <p>Paste into any web page. The demo opens with the current settings and runs on its own;
        <a href="embedding.html">more options and the message API</a>.</p>
      <div class="embed-options">
        <label><input type="checkbox" id="embed-controls" checked> Show the controls</label>
        <label><input type="checkbox" id="embed-readouts" checked> Show the readouts</label>
      </div>
      <label for="embed-iframe">As an iframe</label>
      <textarea id="embed-iframe" readonly rows="4" spellcheck="false"></textarea>
      <button type="button" data-copy="embed-iframe">Copy iframe</button>
      <label for="embed-element">As an element (one module script)</label>
      <textarea id="embed-element" readonly rows="3" spellcheck="false"></textarea>
      <button type="button" data-copy="embed-element">Copy element</button>
      <p><button type="button" id="embed-close">Close</button> <span class="share-status" role="status" aria-live="polite"></span></p>`;
    document.body.append(dialog);
    const fill = () => {
      dialog.querySelector('#embed-iframe').value = iframeSnippet(page, {
        controls: dialog.querySelector('#embed-controls').checked,
        readouts: dialog.querySelector('#embed-readouts').checked,
      });
      dialog.querySelector('#embed-element').value = elementSnippet(page);
    };
    dialog.fill = fill;
    dialog.querySelector('.embed-options').addEventListener('change', fill);
    const status = dialog.querySelector('.share-status');
    for (const button of dialog.querySelectorAll('[data-copy]')) {
      button.addEventListener('click', async () => {
        const area = dialog.querySelector(`#${button.dataset.copy}`);
        area.select();
        status.textContent = (await copyText(area.value)) ? 'Copied.' : 'Selected: press Ctrl+C (⌘C) to copy.';
      });
    }
    dialog.querySelector('#embed-close').addEventListener('click', () => dialog.close());
  }
  dialog.fill();
  dialog.showModal();
}

/** The embedded view's chrome: a link to the full lesson, a toggle for the panel, hidden parts. */
export function addEmbedChrome(page) {
  const { controls, readouts } = page.embed;
  const root = document.documentElement;
  root.classList.toggle('embed-no-controls', !controls);
  root.classList.toggle('embed-no-readouts', !readouts);
  if (!controls && !readouts) page.panel.hidden = true;
  const link = document.createElement('a');
  link.className = 'embed-open';
  link.target = '_blank';
  link.rel = 'noopener';
  link.textContent = 'Open the lesson ↗';
  link.title = 'The full lesson with its theory, in a new tab, with these settings';
  const refresh = () => {
    link.href = lessonLink(page);
  };
  link.addEventListener('pointerdown', refresh);
  link.addEventListener('focus', refresh);
  refresh();
  const toggle = document.createElement('button');
  toggle.type = 'button';
  toggle.className = 'embed-toggle';
  toggle.textContent = 'Controls';
  toggle.setAttribute('aria-controls', 'panel');
  const setOpen = (open) => {
    page.panel.classList.toggle('collapsed', !open);
    toggle.setAttribute('aria-expanded', String(open));
  };
  // Narrow frames start with the panel folded away: the simulation gets the space.
  setOpen(window.innerWidth >= 640);
  toggle.addEventListener('click', () => setOpen(page.panel.classList.contains('collapsed')));
  const bar = document.createElement('div');
  bar.className = 'embed-bar';
  if (!page.panel.hidden) bar.append(toggle);
  bar.append(link);
  document.querySelector('.sim').prepend(bar);
}
