// The source viewer's rules, without a page: which `file` parameters are acceptable, and where a
// symbol is defined in a Rust or WGSL file. Used by js/site/source.js in the browser and by
// tests/unit/code-links.test.mjs in node (so a Code link passes the test exactly when the viewer finds
// its function).

/** The viewer's URL for `file` (repository-relative) and an optional `symbol`. */
export function viewerHref(file, symbol = '') {
  return `source.html?file=${file}${symbol ? `&symbol=${symbol}` : ''}`;
}

/**
 * Why `file` cannot be shown, or null if it can: it must be a relative path without `..`, without a
 * scheme, and one of `shipped` (the list the build wrote). Checked before anything is fetched.
 */
export function fileProblem(file, shipped) {
  if (typeof file !== 'string' || file === '') return 'No file was named.';
  if (file.length > 300) return 'The file name is too long.';
  if (/^[\\/]/.test(file) || /^[a-z][a-z0-9+.-]*:/i.test(file)) return `“${file}” is not a relative path.`;
  if (file.split(/[\\/]/).some((part) => part === '..' || part === '.' || part === '')) {
    return `“${file}” is not a plain path (no “..”, “.” or empty parts).`;
  }
  if (!shipped.includes(file)) return `“${file}” is not one of the source files shipped with this site.`;
  return null;
}

/** A symbol is a name, or Type::name for a method or associated item of Type. */
const NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;
export function symbolProblem(symbol) {
  if (typeof symbol !== 'string' || symbol === '') return 'No symbol was named.';
  const parts = symbol.split('::');
  if (parts.length > 2 || !parts.every((part) => NAME.test(part))) {
    return `“${symbol}” is not a name (write name or Type::name).`;
  }
  return null;
}

function escape(name) {
  return name.replace(/[$]/g, '\\$&');
}

/**
 * The line that defines `name`: Rust `fn`, `struct`, `enum`, `trait`, `type`, `const`, `static`,
 * `mod`, `macro_rules!` (with `pub`, `pub(crate)`, `const fn`, …), WGSL `fn` (after any attributes
 * such as `@compute @workgroup_size(64)`), `struct`, `const`, `override`, `alias`, `var<…>`.
 */
function definition(name) {
  const n = escape(name);
  return new RegExp(
    String.raw`^\s*(?:@[A-Za-z_]+(?:\([^)]*\))?\s+)*(?:pub(?:\([^)]*\))?\s+)?` +
      String.raw`(?:(?:const|async|unsafe|extern\s+"[^"]*")\s+)*` +
      String.raw`(?:(?:fn|struct|enum|trait|type|const|static|mod|union|override|alias)\s+|var(?:<[^>]*>)?\s+|macro_rules!\s*)` +
      `${n}\\b`,
  );
}

/** A block that can hold `Type::name`: `impl … Type`, `impl Trait for Type`, `trait Type`. */
function container(type) {
  const t = escape(type);
  return new RegExp(
    String.raw`^\s*(?:(?:pub(?:\([^)]*\))?\s+)?(?:unsafe\s+)?trait\s+${t}\b|(?:unsafe\s+)?impl\b(?:\s*<.*?>)?\s+(?:[^{]*?\s+for\s+)?(?:[A-Za-z_][A-Za-z0-9_]*::)*${t}\b)`,
  );
}

/**
 * The last line (0-based) of the item that starts on line `start`: where its braces close, or its
 * `;` if it ends before opening a brace. Skips comments, strings and character literals.
 */
export function itemEnd(lines, start) {
  let depth = 0;
  let parens = 0;
  let opened = false;
  let inBlockComment = false;
  for (let l = start; l < lines.length; l++) {
    const line = lines[l];
    for (let c = 0; c < line.length; c++) {
      const ch = line[c];
      if (inBlockComment) {
        if (ch === '*' && line[c + 1] === '/') { inBlockComment = false; c++; }
        continue;
      }
      if (ch === '/' && line[c + 1] === '/') break;
      if (ch === '/' && line[c + 1] === '*') { inBlockComment = true; c++; continue; }
      if (ch === '"') {
        for (c++; c < line.length && line[c] !== '"'; c++) if (line[c] === '\\') c++;
        continue;
      }
      if (ch === "'") {
        // A character literal ('x', '\n', '{'); otherwise a lifetime ('a).
        const literal = /^'(?:\\.[^']*|[^'\\])'/.exec(line.slice(c));
        if (literal) c += literal[0].length - 1;
        continue;
      }
      if (ch === '(' || ch === '[') parens++;
      else if (ch === ')' || ch === ']') parens--;
      else if (ch === '{') { depth++; opened = true; }
      else if (ch === '}') { depth--; if (opened && depth <= 0) return l; }
      else if (ch === ';' && !opened && depth === 0 && parens <= 0) return l;
    }
  }
  return lines.length - 1;
}

/** The first line (0-based) of the comments and attributes that belong to the item on `line`. */
function itemStart(lines, line) {
  let start = line;
  while (start > 0 && /^\s*(?:\/\/\/|\/\/(?!!)|#\[|@)/.test(lines[start - 1])) start--;
  return start;
}

/**
 * Where `symbol` is defined in `text`: { line, start, end } (1-based: the defining line and the
 * whole item with its doc comment), or null. A plain name is a top-level item where there is one;
 * `Type::name` looks for `fn name` (or another item) inside an `impl` of Type or `trait Type`.
 */
export function findSymbol(text, symbol) {
  if (symbolProblem(symbol)) return null;
  const lines = text.split(/\r?\n/);
  const parts = symbol.split('::');
  const name = parts[parts.length - 1];
  const def = definition(name);
  let from = 0;
  let to = lines.length - 1;
  const found = (l) => ({ line: l + 1, start: itemStart(lines, l) + 1, end: itemEnd(lines, l) + 1 });
  if (parts.length === 1) {
    // A top-level item first (a method of the same name is Type::name), then any.
    for (let l = from; l <= to; l++) if (!/^\s/.test(lines[l]) && def.test(lines[l])) return found(l);
    for (let l = from; l <= to; l++) if (def.test(lines[l])) return found(l);
    return null;
  }
  const block = container(parts[0]);
  for (let l = 0; l < lines.length; l++) {
    if (!block.test(lines[l])) continue;
    from = l + 1;
    to = itemEnd(lines, l);
    for (let m = from; m <= to; m++) if (def.test(lines[m])) return found(m);
  }
  return null;
}

/** "crates/phyxel/src/lessons/pbd.rs#PbdSystem::step" → { file, symbol }. */
export function parseCodeRef(ref) {
  const hash = ref.indexOf('#');
  return hash < 0 ? { file: ref, symbol: '' } : { file: ref.slice(0, hash), symbol: ref.slice(hash + 1) };
}
