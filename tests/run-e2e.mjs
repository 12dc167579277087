// Runs browser end-to-end test files one after another (`node run-e2e.mjs e2e/a.test.mjs …`) and gives
// a failed test one more run, alone, before it fails the suite.
//
// Why: on a loaded CI machine a browser's frames, workers and software GPU can be several times slower
// than here, and a test that waits on them may run out of time once in hundreds of runs (stops 35 and
// 36 each lost a whole session's work to one such test). A real defect fails both runs and still fails
// the suite; a test that passed only on its second run is named at the end of the output, so a flaky
// test stays visible and gets fixed rather than hidden.
import { spawn } from 'node:child_process';

const files = process.argv.slice(2);
if (!files.length) {
  console.error('usage: node run-e2e.mjs FILE…');
  process.exit(2);
}

/** Run `node --test` on `file` (only the tests named in `names`, if given); echo and return its output. */
function runFile(file, names = []) {
  const patterns = names.flatMap((name) => ['--test-name-pattern', `^${name.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}$`]);
  const args = ['--test', '--test-concurrency=1', '--test-reporter=tap', ...patterns, file];
  return new Promise((resolve) => {
    const child = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    const echo = (stream) => (chunk) => {
      output += chunk;
      stream.write(chunk);
    };
    child.stdout.on('data', echo(process.stdout));
    child.stderr.on('data', echo(process.stderr));
    child.on('close', (code) => resolve({ code, output }));
  });
}

/** The top-level tests that failed (TAP "not ok N - name" lines without indentation). */
const failedTests = (output) =>
  [...output.matchAll(/^not ok \d+ - (.*)$/gm)].map((m) => m[1].trim().replace(/\\([#\\])/g, '$1'));
/** How many tests passed (the TAP summary's "# pass N"). */
const passedCount = (output) => Number(output.match(/^# pass (\d+)$/m)?.[1] ?? 0);

const passedOnRetry = [];
const failed = [];
for (const file of files) {
  const first = await runFile(file);
  if (first.code === 0) continue;
  const names = failedTests(first.output);
  // A file that failed without naming a test (a crash, a hook) runs again whole.
  const retryNames = names.filter((name) => name !== file && !name.endsWith('.mjs'));
  console.log(`\n# run-e2e: ${file} failed (${names.length ? names.join(' | ') : 'no test named'}); running ${retryNames.length ? 'the failed tests' : 'the file'} once more\n`);
  const second = await runFile(file, retryNames);
  // A pattern that matched nothing would pass vacuously: the retried tests must all have run and passed.
  const ran = retryNames.length === 0 || passedCount(second.output) >= retryNames.length;
  if (second.code === 0 && ran) passedOnRetry.push(`${file}: ${retryNames.join(' | ') || 'the whole file'}`);
  else failed.push(`${file}: ${failedTests(second.output).join(' | ') || (ran ? `exit ${second.code}` : 'the retry ran none of them')}`);
}

if (passedOnRetry.length) {
  console.log('\n# run-e2e: FLAKY — failed once, then passed alone (fix these):');
  for (const line of passedOnRetry) console.log(`#   ${line}`);
}
if (failed.length) {
  console.log('\n# run-e2e: FAILED twice:');
  for (const line of failed) console.log(`#   ${line}`);
  process.exit(1);
}
console.log(`\n# run-e2e: ${files.length} files passed${passedOnRetry.length ? ` (${passedOnRetry.length} on a second run)` : ''}`);
