// Which compute backends this browser offers. The lessons report it in the footer badge; the phyxel
// solver (WebGPU compute with a CPU fallback) will choose with it.

/** Resolve `promise`, or `fallback` after `ms` milliseconds (a hung adapter request must not hang the page). */
export function withTimeout(promise, ms, fallback) {
  return Promise.race([promise, new Promise((resolve) => setTimeout(() => resolve(fallback), ms))]);
}

/**
 * Probe WebGPU: { available: true, adapter } or { available: false, reason }.
 * Never throws.
 */
export async function probeWebGPU() {
  if (!('gpu' in navigator) || !navigator.gpu) {
    return { available: false, reason: 'this browser does not expose WebGPU (navigator.gpu)' };
  }
  try {
    const adapter = await withTimeout(navigator.gpu.requestAdapter(), 5000, null);
    if (!adapter) return { available: false, reason: 'no WebGPU adapter was granted' };
    const info = adapter.info || {};
    const name = [info.vendor, info.architecture, info.description].filter(Boolean).join(' ') || 'unnamed adapter';
    return { available: true, adapter: name };
  } catch (error) {
    return { available: false, reason: `requesting a WebGPU adapter failed: ${error.message}` };
  }
}

/**
 * Fill the footer badge: what this page computes on and whether WebGPU is available.
 * `computesOn` describes this page's own backend, e.g. "CPU (WebAssembly)".
 */
export async function showBackendBadge(computesOn) {
  const badge = document.getElementById('backend-badge');
  if (!badge) return;
  badgeComputesOn = computesOn;
  const gpu = await probeWebGPU();
  badge.dataset.webgpu = gpu.available ? 'available' : 'unavailable';
  badgeGpuText = gpu.available ? `WebGPU available (${gpu.adapter})` : `WebGPU unavailable: ${gpu.reason}`;
  fillBadge(badge);
}

let badgeComputesOn = '';
let badgeGpuText = null;

function fillBadge(badge) {
  badge.textContent = badgeComputesOn ? `Runs on ${badgeComputesOn} · ${badgeGpuText}` : badgeGpuText;
  badge.title = badgeGpuText;
}

/** The page's solver moved (CPU threads, GPU): the badge says where it runs now. */
export function setComputesOn(computesOn) {
  badgeComputesOn = computesOn;
  const badge = document.getElementById('backend-badge');
  if (badge && badgeGpuText !== null) fillBadge(badge);
}
