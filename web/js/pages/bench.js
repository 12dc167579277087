// The bench page: the standard cube on every backend this browser offers, as a table and as JSON.
import { withTimeout } from '../workers/backend.js';
import { availableThreads, startSolverWorker, workerBuild } from '../workers/worker-builds.js';

const form = document.getElementById('bench-form');
const status = document.getElementById('bench-status');
const tbody = document.querySelector('#bench-table tbody');
const output = document.getElementById('bench-json');
const LIMITS = { n: [2, 40], steps: [1, 1000] };
/**
 * How long the WebGPU device may take to be granted, and a WebGPU run to answer (ms): a browser can
 * leave an adapter request unanswered (docs/architecture.md, browser facts), and the page then reports
 * WebGPU as skipped instead of waiting for ever.
 */
const GPU_DEVICE_TIMEOUT_MS = 10_000;
const GPU_RUN_TIMEOUT_MS = 120_000;
const TIMED_OUT = Symbol('timed out');

document.getElementById('bench-cores').textContent = String(availableThreads());

/** The integer in control `name`, or null with the reason shown beside it. */
function readInteger(name, text) {
  const [min, max] = LIMITS[name];
  const error = document.getElementById(`bench-${name}-error`);
  const value = Number(text);
  const reason = !/^\s*\d+\s*$/.test(text)
    ? `“${text}” is not a whole number`
    : value < min || value > max
      ? `must be between ${min} and ${max}`
      : '';
  error.textContent = reason;
  return reason ? null : value;
}

/** Thread counts to measure: 1, 2, 4, … and all the processors. */
function threadCounts() {
  const most = availableThreads();
  const counts = new Set([most]);
  for (let t = 1; t < most; t *= 2) counts.add(t);
  return [...counts].sort((a, b) => a - b);
}

function rates(phyxels, interactions, steps, ms) {
  const stepsPerSecond = steps / (ms / 1000);
  return {
    steps_per_s: stepsPerSecond,
    phyxel_steps_per_s: phyxels * stepsPerSecond,
    neighbour_interactions_per_s: interactions * stepsPerSecond,
  };
}

async function cpuRun(build, threads, n, steps) {
  const worker = await startSolverWorker(build, threads);
  try {
    const result = await worker.request({ type: 'bench', n, steps });
    return {
      backend: 'cpu',
      build,
      threads: worker.threads,
      phyxels: result.phyxels,
      steps,
      ms: result.ms,
      ...rates(result.phyxels, result.neighbourInteractions, steps, result.ms),
      work_per_thread: result.workPerThread,
      positions: result.positions,
    };
  } finally {
    worker.terminate();
  }
}

async function gpuRun(n, steps) {
  if (!('gpu' in navigator)) return { skipped: 'this browser has no WebGPU' };
  const view = await import('../../phyxel-view.js');
  await view.default();
  let device;
  try {
    device = await withTimeout(view.GpuDevice.create(), GPU_DEVICE_TIMEOUT_MS, TIMED_OUT);
  } catch (error) {
    return { skipped: error.message };
  }
  if (device === TIMED_OUT) return { skipped: `no WebGPU device was granted within ${GPU_DEVICE_TIMEOUT_MS / 1000} s` };
  const cube = new view.GpuBenchCube(device, n);
  const answered = async (steps) => {
    if ((await withTimeout(cube.run(steps), GPU_RUN_TIMEOUT_MS, TIMED_OUT)) === TIMED_OUT) {
      throw new Error(`the WebGPU run did not answer within ${GPU_RUN_TIMEOUT_MS / 1000} s`);
    }
  };
  try {
    await answered(3);
    const start = performance.now();
    await answered(steps);
    const ms = performance.now() - start;
    return {
      backend: 'webgpu',
      build: 'phyxel-view',
      adapter: device.adapter() || 'unnamed adapter',
      phyxels: cube.phyxels(),
      steps,
      ms,
      ...rates(cube.phyxels(), cube.neighbour_interactions(), steps, ms),
    };
  } finally {
    cube.free();
    device.free();
  }
}

function largestDifference(a, b) {
  let worst = 0;
  for (let i = 0; i < a.length; i++) worst = Math.max(worst, Math.abs(a[i] - b[i]));
  return worst;
}

function addRow(run) {
  const row = tbody.insertRow();
  const cells = [
    run.backend === 'webgpu' ? `WebGPU (${run.adapter})` : 'CPU',
    run.build,
    run.threads ?? '—',
    run.steps_per_s.toFixed(1),
    run.phyxel_steps_per_s.toExponential(2),
    run.neighbour_interactions_per_s.toExponential(2),
    run.work_per_thread ? run.work_per_thread.join(' / ') : '—',
    run.max_difference_from_single_thread === undefined ? '—' : run.max_difference_from_single_thread === 0 ? 'exactly' : run.max_difference_from_single_thread.toExponential(1),
  ];
  for (const text of cells) row.insertCell().textContent = String(text);
}

async function runAll(n, steps) {
  document.body.dataset.bench = 'running';
  tbody.replaceChildren();
  output.textContent = '';
  const choice = workerBuild();
  const report = {
    page: 'bench',
    scene: 'benchmark-cube',
    n,
    steps,
    date: new Date().toISOString(),
    user_agent: navigator.userAgent,
    hardware_concurrency: availableThreads(),
    cross_origin_isolated: globalThis.crossOriginIsolated === true,
    worker_build: choice,
    runs: [],
    skipped: [],
  };
  const plan = [{ build: 'single', threads: 1 }];
  if (choice.build === 'threaded') for (const threads of threadCounts()) plan.push({ build: 'threaded', threads });
  let reference = null;
  for (const { build, threads } of plan) {
    status.textContent = `CPU, ${build} build, ${threads} thread${threads > 1 ? 's' : ''}…`;
    const run = await cpuRun(build, threads, n, steps);
    reference ??= run.positions;
    run.max_difference_from_single_thread = largestDifference(run.positions, reference);
    delete run.positions;
    report.runs.push(run);
    addRow(run);
  }
  status.textContent = 'WebGPU…';
  try {
    const gpu = await gpuRun(n, steps);
    if (gpu.skipped) report.skipped.push({ backend: 'webgpu', reason: gpu.skipped });
    else {
      report.runs.push(gpu);
      addRow(gpu);
    }
  } catch (error) {
    report.skipped.push({ backend: 'webgpu', reason: error.message });
  }
  status.textContent = `Done: ${report.runs.length} runs (${choice.build} CPU build: ${choice.reason}).`;
  output.textContent = JSON.stringify(report, null, 2);
  window.benchReport = report;
  document.body.dataset.bench = 'done';
}

form.addEventListener('submit', (event) => {
  event.preventDefault();
  const n = readInteger('n', form.elements.n.value);
  const steps = readInteger('steps', form.elements.steps.value);
  if (n === null || steps === null) return;
  runAll(n, steps).catch((error) => {
    status.textContent = `The benchmark failed: ${error.message}`;
    document.body.dataset.bench = 'failed';
  });
});

// ?n=…&steps=…&run=1 fills the form (bad values are named at their control) and runs it.
const params = new URLSearchParams(location.search);
for (const name of ['n', 'steps']) if (params.has(name)) form.elements[name].value = params.get(name);
if (params.get('run') === '1') form.requestSubmit();
