// The lessons' "Code" lines point at code that exists: every data-code link names a shipped source file
// that defines the symbol (found by the same rule the viewer uses when the page is read), and every
// theory block of every lesson page has a Code line. No browser and no build: it reads web/*.html and
// the sources. Run: cd tests && node --test unit/
//
// The markup (docs/lessons.md, "From equation to code"):
//   <p class="code-ref">Code: <a data-code="FILE#SYMBOL" href="source.html?file=FILE&amp;symbol=SYMBOL"><code>SYMBOL</code></a>
//     in <code>FILE</code>; … Page symbols named as in the code (k<sub>v</sub> is <code>volume_stiffness</code>).</p>
// A theory block is an <h2> of <article class="theory"> and everything up to the next <h2> or the end
// of the article.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { shippedFiles } from '../../web/build-sources.mjs';
import { fileProblem, findSymbol, parseCodeRef, symbolProblem, viewerHref } from '../../web/js/site/source-lookup.js';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const WEB = join(ROOT, 'web');
/** Pages that are not lessons (no theory to link). */
const NOT_LESSONS = new Set(['index.html', 'embed.html', 'embedding.html', 'bench.html', 'source.html']);

const pages = readdirSync(WEB)
  .filter((name) => name.endsWith('.html'))
  .sort()
  .map((name) => ({ name, html: readFileSync(join(WEB, name), 'utf8') }));
const shipped = await shippedFiles(ROOT);

const unescape = (s) => s.replaceAll('&amp;', '&').replaceAll('&lt;', '<').replaceAll('&gt;', '>').replaceAll('&quot;', '"');

/** Every <a data-code> of a page: its reference, href, link text and the paragraph it sits in. */
function codeLinks(html) {
  const links = [];
  for (const p of html.matchAll(/<p class="code-ref">([\s\S]*?)<\/p>/g)) {
    for (const a of p[1].matchAll(/<a\b([^>]*)>([\s\S]*?)<\/a>/g)) {
      const attr = (name) => a[1].match(new RegExp(`\\b${name}="([^"]*)"`))?.[1];
      links.push({ ref: attr('data-code'), href: attr('href'), text: a[2], paragraph: p[1] });
    }
  }
  return links;
}

/** The theory blocks of a page: [{ heading, html }]. */
function theoryBlocks(html) {
  const article = html.match(/<article class="theory">([\s\S]*?)<\/article>/)?.[1];
  if (!article) return null;
  return article
    .split(/(?=<h2>)/)
    .filter((part) => part.startsWith('<h2>'))
    .map((part) => ({ heading: part.match(/<h2>([\s\S]*?)<\/h2>/)[1], html: part }));
}

const sources = new Map();
function source(file) {
  if (!sources.has(file)) sources.set(file, readFileSync(join(ROOT, file), 'utf8'));
  return sources.get(file);
}

test('every lesson page has a Code line under each theory block', () => {
  const lessons = pages.filter(({ name }) => !NOT_LESSONS.has(name));
  assert.ok(lessons.length >= 9, `only ${lessons.length} lesson pages found`);
  for (const { name, html } of lessons) {
    const blocks = theoryBlocks(html);
    assert.ok(blocks, `${name}: no <article class="theory"> (a lesson page, or add it to NOT_LESSONS)`);
    assert.ok(blocks.length >= 1, `${name}: the theory has no <h2> blocks`);
    for (const block of blocks) {
      assert.ok(codeLinks(block.html).length >= 1, `${name}, “${block.heading}”: no Code line (<p class="code-ref"> with a data-code link)`);
    }
  }
});

test('every Code link names a shipped file that defines its symbol, in the one markup', () => {
  let count = 0;
  for (const { name, html } of pages) {
    // No data-code link outside a Code line, and no Code line without one.
    const all = [...html.matchAll(/data-code="/g)].length;
    const links = codeLinks(html);
    assert.equal(links.length, all, `${name}: a data-code link outside <p class="code-ref">`);
    for (const p of html.matchAll(/<p class="code-ref">([\s\S]*?)<\/p>/g)) {
      assert.match(p[1], /^Code: /, `${name}: a Code line must start with “Code: ”`);
      assert.match(p[1], /data-code="/, `${name}: a Code line without a link`);
    }
    for (const { ref, href, text, paragraph } of links) {
      const where = `${name}: ${ref}`;
      assert.ok(ref, `${name}: a link in a Code line has no data-code`);
      const { file, symbol } = parseCodeRef(ref);
      assert.equal(symbolProblem(symbol), null, where);
      assert.ok(existsSync(join(ROOT, file)), `${where}: ${file} does not exist (moved? update the Code line)`);
      assert.equal(fileProblem(file, shipped), null, `${where}: not shipped with the site (web/build-sources.mjs SHIPPED_ROOTS)`);
      assert.ok(findSymbol(source(file), symbol), `${where}: ${file} does not define ${symbol} (renamed or moved?)`);
      assert.equal(unescape(href ?? ''), viewerHref(file, symbol), `${where}: href must be the viewer's URL for data-code`);
      assert.equal(text, `<code>${symbol}</code>`, `${where}: the link text must be the symbol`);
      assert.ok(paragraph.includes(`in <code>${file}</code>`), `${where}: the line must say “in <code>${file}</code>”`);
      count++;
    }
  }
  assert.ok(count >= 40, `only ${count} Code links`);
});

test('the viewer refuses files outside the shipped list before fetching anything', () => {
  const list = ['crates/phyxel/src/lessons/pbd.rs'];
  assert.equal(fileProblem('crates/phyxel/src/lessons/pbd.rs', list), null);
  for (const bad of ['../Cargo.toml', 'crates/phyxel/../../Cargo.toml', '/etc/passwd', 'https://example.com/x.rs',
    'crates//phyxel/src/lessons/pbd.rs', './crates/phyxel/src/lessons/pbd.rs', 'crates\\phyxel\\x.rs', 'Cargo.toml', '', null]) {
    assert.ok(fileProblem(bad, list), `${bad} accepted`);
  }
  for (const bad of ['', 'a::b::c', 'fn x', 'x/y', '1abc']) assert.ok(symbolProblem(bad), `symbol ${bad} accepted`);
});

test('symbols are found as the viewer finds them: items, Type::method, WGSL entry points', () => {
  const rust = [
    '/// Doc.',
    '#[derive(Clone)]',
    'pub struct Body { a: u32 }',
    '',
    'impl Default for Body {',
    '    fn default() -> Self { Body { a: 0 } }',
    '}',
    'impl<T: Copy> Body {',
    '    /// One step.',
    '    pub fn step(&mut self) {',
    "        let c = '{';",
    '        if true { self.a += 1; } // }',
    '    }',
    '}',
    'pub const LIMIT: [f64; 2] = [1.0, 2.0];',
    'pub(crate) fn step() {}',
  ].join('\n');
  assert.deepEqual(findSymbol(rust, 'Body'), { line: 3, start: 1, end: 3 });
  assert.deepEqual(findSymbol(rust, 'Body::step'), { line: 10, start: 9, end: 13 });
  assert.deepEqual(findSymbol(rust, 'Body::default'), { line: 6, start: 6, end: 6 });
  assert.deepEqual(findSymbol(rust, 'LIMIT'), { line: 15, start: 15, end: 15 });
  assert.deepEqual(findSymbol(rust, 'step'), { line: 16, start: 16, end: 16 });
  assert.equal(findSymbol(rust, 'Body::missing'), null);
  assert.equal(findSymbol(rust, 'missing'), null);
  const wgsl = ['// Pass 3.', '@compute @workgroup_size(64)', 'fn phyxel_stresses(@builtin(global_invocation_id) id: vec3<u32>) {', '  let i = id.x;', '}'].join('\n');
  assert.deepEqual(findSymbol(wgsl, 'phyxel_stresses'), { line: 3, start: 1, end: 5 });
});
