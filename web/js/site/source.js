// source.html: one of the sources shipped with the site (web/build-sources.mjs), with line numbers,
// the named symbol's item highlighted and scrolled into view.
//
//   source.html?file=crates/phyxel/src/lessons/pbd.rs&symbol=PbdSystem::step
//
// Only files in source/files.json are ever fetched; anything else (a path with "..", an absolute path
// or URL, a file not shipped) is named in a message with the list of files below it. The symbol is
// found when the page is viewed (js/site/source-lookup.js), so links carry no line numbers.
import { fileProblem, findSymbol, symbolProblem, viewerHref } from './source-lookup.js';

const SOURCE_DIR = 'source';
const status = document.getElementById('source-status');
const title = document.getElementById('source-title');
const lede = document.getElementById('source-lede');
const meta = document.getElementById('source-meta');
const code = document.getElementById('source-code');
const list = document.getElementById('source-files');

function notice(kind, text) {
  const p = document.createElement('p');
  p.className = `notice ${kind}`;
  p.textContent = text;
  status.append(p);
  return p;
}

/** The URL of a shipped file's text (each path segment escaped; the file is already in the list). */
function rawUrl(file) {
  return `${SOURCE_DIR}/${file.split('/').map(encodeURIComponent).join('/')}.txt`;
}

/** Every shipped file, grouped by the folder it was shipped from. */
function showList({ roots, files }) {
  list.replaceChildren();
  for (const root of roots) {
    const inRoot = files.filter((file) => file.startsWith(`${root}/`));
    if (inRoot.length === 0) continue;
    const heading = document.createElement('h2');
    heading.textContent = root;
    const ul = document.createElement('ul');
    for (const file of inRoot) {
      const li = document.createElement('li');
      const a = document.createElement('a');
      a.href = viewerHref(file);
      a.textContent = file.slice(root.length + 1);
      li.append(a);
      ul.append(li);
    }
    list.append(heading, ul);
  }
  list.hidden = false;
}

/** The file's lines, numbered by CSS, each addressable as #L<n>. */
function showCode(text, target) {
  const lines = text.replace(/\n$/, '').split(/\r?\n/);
  const fragment = document.createDocumentFragment();
  lines.forEach((line, i) => {
    const n = i + 1;
    const span = document.createElement('span');
    span.className = 'source-line';
    span.id = `L${n}`;
    if (/^\s*\/\//.test(line)) span.classList.add('is-comment');
    if (target && n >= target.start && n <= target.end) span.classList.add('is-target');
    if (target && n === target.line) span.classList.add('is-target-line');
    span.textContent = line === '' ? '\u200b' : line; // an empty line keeps its height
    fragment.append(span);
  });
  code.replaceChildren(fragment);
  code.hidden = false;
}

function showMeta(file, target, symbol) {
  meta.replaceChildren();
  const path = document.createElement('code');
  path.textContent = file;
  const raw = document.createElement('a');
  raw.href = rawUrl(file);
  raw.textContent = 'plain text';
  meta.append(path, ' · ', raw);
  if (target) {
    const where = document.createElement('a');
    where.href = `#L${target.line}`;
    where.textContent = `${symbol}: lines ${target.start}–${target.end}`;
    meta.append(' · ', where);
  }
  meta.hidden = false;
}

async function fetchText(url) {
  const response = await fetch(url);
  if (!response.ok) throw new Error(`${url}: HTTP ${response.status}`);
  return response.text();
}

async function main() {
  const params = new URLSearchParams(location.search);
  const file = params.get('file');
  const symbol = params.get('symbol') ?? '';

  let shipped;
  try {
    shipped = JSON.parse(await fetchText(`${SOURCE_DIR}/files.json`));
  } catch (error) {
    notice('error', `The list of shipped sources could not be loaded (${error.message}). Was the site built with web/build-sources.mjs?`);
    return;
  }

  if (file === null) {
    showList(shipped);
    return;
  }
  const problem = fileProblem(file, shipped.files);
  if (problem) {
    status.dataset.problem = 'file';
    notice('error', `${problem} Choose one of the files below.`);
    showList(shipped);
    return;
  }

  title.textContent = symbol ? `${symbol} in ${file}` : file;
  document.title = `${symbol ? `${symbol} — ` : ''}${file} — Phyxel`;
  lede.hidden = true;

  let text;
  try {
    text = await fetchText(rawUrl(file));
  } catch (error) {
    notice('error', `${file} could not be loaded (${error.message}).`);
    return;
  }

  let target = null;
  if (symbol) {
    const bad = symbolProblem(symbol);
    target = bad ? null : findSymbol(text, symbol);
    if (bad) notice('warning', bad);
    else if (!target) notice('warning', `“${symbol}” is not defined in ${file} (it may have moved); the whole file is shown.`);
  }

  try {
    showCode(text, target);
  } catch (error) {
    // The plain-text fallback: the file as it is, unnumbered.
    code.textContent = text;
    code.hidden = false;
    notice('info', `Shown as plain text (${error.message}).`);
  }
  showMeta(file, target, symbol);

  // A #L<n> link centres its line; a symbol puts its item (doc comment first) at the top, as much of
  // it on screen as fits, its defining line always.
  if (/^#L\d+$/.test(location.hash)) {
    document.getElementById(location.hash.slice(1))?.scrollIntoView({ block: 'center' });
  } else if (target) {
    document.getElementById(`L${target.start}`).scrollIntoView({ block: 'start' });
    const defining = document.getElementById(`L${target.line}`);
    if (defining.getBoundingClientRect().bottom > innerHeight) defining.scrollIntoView({ block: 'center' });
  }
}

main()
  .catch((error) => notice('error', `The viewer failed: ${error.message}`))
  .finally(() => {
    document.body.dataset.ready = 'true';
  });
