#!/usr/bin/env node
// Trunk post-build hook: ship the solver's sources with the site, so that every lesson's "Code" line
// opens the function it names in source.html (js/site/source.js), offline and at the version built.
//
// Copies the source files under SHIPPED_ROOTS into <staging>/source/, each with ".txt" appended (any
// static host serves that as text/plain; ".rs" is not a text type everywhere), and writes
// <staging>/source/files.json, the list the viewer accepts: nothing else is ever fetched by it.
//
//   node web/build-sources.mjs [OUT_DIR]     (default: $TRUNK_STAGING_DIR, else dist)
//
// tests/unit/code-links.test.mjs imports shippedFiles() to check that every Code link names a
// shipped file.
import { mkdir, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { dirname, join, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');

/** Folders whose sources are shipped (relative to the repository root), and the file types taken. */
export const SHIPPED_ROOTS = [
  'crates/phyxel/src', // the solver and the lessons' physics
  'crates/phyxel-web/src', // the 2D lessons' glue (what the pages call)
  'shaders', // the WebGPU compute and render passes
];
const EXTENSIONS = ['.rs', '.wgsl'];

/** The folder under the site that holds the shipped sources, and the list's name in it. */
export const SOURCE_DIR = 'source';
export const LIST_FILE = 'files.json';

/** Every shipped file, as a repository-relative path with forward slashes, sorted. */
export async function shippedFiles(root = ROOT) {
  const files = [];
  async function walk(dir) {
    for (const entry of await readdir(join(root, dir), { withFileTypes: true })) {
      const path = `${dir}/${entry.name}`;
      if (entry.isDirectory()) await walk(path);
      else if (entry.isFile() && EXTENSIONS.some((ext) => entry.name.endsWith(ext))) files.push(path);
    }
  }
  for (const dir of SHIPPED_ROOTS) await walk(dir);
  return files.sort();
}

async function main() {
  const out = join(process.argv[2] ?? process.env.TRUNK_STAGING_DIR ?? join(ROOT, 'dist'), SOURCE_DIR);
  await rm(out, { recursive: true, force: true });
  const files = await shippedFiles();
  let bytes = 0;
  for (const file of files) {
    const text = await readFile(join(ROOT, file));
    bytes += text.length;
    const target = join(out, `${file}.txt`);
    await mkdir(dirname(target), { recursive: true });
    await writeFile(target, text);
  }
  await writeFile(join(out, LIST_FILE), `${JSON.stringify({ roots: SHIPPED_ROOTS, files }, null, 1)}\n`);
  const where = relative(process.cwd(), out).split(sep).join('/') || '.';
  console.log(`build-sources: ${files.length} files (${Math.round(bytes / 1024)} KiB) → ${where}/`);
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) await main();
