// What the browser benches share: open a page as a user does, wait until it is in the state to be
// measured, read its readouts once a second, and append one JSON row per page (with the date and the
// machine's load) to stdout and to a file. Not a test: the benches are run by hand on a quiet machine
// after `./dev build` (each bench's header says how) and their tables copied into docs/benchmarks.md.
import fs from 'node:fs';
import os from 'node:os';
import { openPage } from '../e2e/harness.mjs';

/**
 * Open `path`, wait for the page to be ready, `settleMs` more, and then for `until` (a function
 * evaluated in the page with `untilArg`, true once the state to measure is reached; at most
 * `untilMs`), then evaluate
 * `read` in the page
 * `samples` times a second apart. `summarise(samples)` gives the row's numbers; the row is pushed to
 * `rows` and `rows` written to `out`.
 */
export async function measurePage(env, path, { settleMs = 0, until = () => true, untilArg = null, untilMs = 60_000, samples = 8, read, summarise, rows, out }) {
  const { page, context } = await openPage(env, path);
  try {
    await page.waitForSelector('body[data-ready="true"]', { timeout: 120_000 });
    const started = Date.now();
    await page.waitForTimeout(settleMs);
    await page.waitForFunction(until, untilArg, { timeout: untilMs, polling: 500 });
    const readings = [];
    for (let i = 0; i < samples; i++) {
      await page.waitForTimeout(1000);
      readings.push(await page.evaluate(read));
    }
    return record(
      {
        page: path,
        ...summarise(readings),
        waited_s: (Date.now() - started) / 1000,
        first: readings[0],
        last: readings.at(-1),
      },
      rows,
      out,
    );
  } finally {
    await context.close();
  }
}

/**
 * Stamp `row` with the date and the machine's load and cores, print it as one JSON line, append it to
 * `rows` and write `rows` to `out`; returns the stamped row.
 */
export function record(row, rows, out) {
  const stamped = { ...row, date: new Date().toISOString(), load: os.loadavg()[0], cpus: os.cpus().length };
  console.log(JSON.stringify(stamped));
  rows.push(stamped);
  fs.writeFileSync(out, JSON.stringify(rows, null, 1));
  return stamped;
}

/** The median, smallest and largest of the finite numbers in `values`, as `{prefix}median` etc. */
export function spread(values, prefix) {
  const sorted = values.filter(Number.isFinite).sort((a, b) => a - b);
  return {
    [`median_${prefix}`]: sorted[sorted.length >> 1],
    [`min_${prefix}`]: sorted[0],
    [`max_${prefix}`]: sorted[sorted.length - 1],
  };
}
