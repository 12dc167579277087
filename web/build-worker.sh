#!/bin/sh
# Trunk post-build hook: the CPU solver's Web Worker module (crates/phyxel-worker), built twice:
#
#   dist/worker/threaded/  rayon on a pool of Web Workers sharing memory (wasm-bindgen-rayon), for
#                          cross-origin isolated pages. Needs the pinned nightly (./dev setup installs
#                          it with rust-src) and the flags of crates/phyxel-worker/threads.env.
#   dist/worker/single/    the same code on one thread, for every other page.
#
# Each: cargo → wasm-bindgen --target web → wasm-opt -O3 (release only), as Trunk builds the lessons'.
set -eu
profile=${TRUNK_PROFILE:-release}
out=${TRUNK_STAGING_DIR:-dist}/worker
target=${CARGO_TARGET_DIR:-target}
nightly=${PHYXEL_NIGHTLY:-nightly-2026-05-20}
release_flag=""
[ "$profile" = release ] && release_flag="--release"

# Single-threaded: std rebuilt too (-Z build-std, without atomics), so that both builds get the same
# whole-program optimization and differ only in their threads (measured: the prebuilt std made the
# single-threaded build 28 % slower than the threaded one on one thread). With wasm's SIMD, as the threaded
# build (crates/phyxel-worker/threads.env).
RUSTFLAGS="-C target-feature=+simd128" cargo "+$nightly" build $release_flag --target wasm32-unknown-unknown -p phyxel-worker \
  -Z build-std=panic_abort,std --target-dir "$target/worker-single"
wasm-bindgen --target web --no-typescript --out-dir "$out/single" --out-name phyxel-worker \
  "$target/worker-single/wasm32-unknown-unknown/$profile/phyxel_worker.wasm"

# Threaded (its own target directory: std and every crate are compiled with atomics).
. crates/phyxel-worker/threads.env
RUSTFLAGS="$PHYXEL_THREADS_RUSTFLAGS" cargo "+$nightly" build $release_flag --target wasm32-unknown-unknown -p phyxel-worker \
  --features threads -Z build-std=panic_abort,std --target-dir "$target/threads"
wasm-bindgen --target web --no-typescript --out-dir "$out/threaded" --out-name phyxel-worker \
  "$target/threads/wasm32-unknown-unknown/$profile/phyxel_worker.wasm"
# wasm-bindgen-rayon 1.3's pool workers (its no-bundler helper) start the module with positional
# arguments, which wasm-bindgen 0.2.130 warns about in every pool thread: hand them the object it asks
# for, { module_or_path, memory }, instead (the same module and memory).
for helper in "$out"/threaded/snippets/wasm-bindgen-rayon-*/src/workerHelpers.no-bundler.js; do
  sed -i 's/pkg\.default(data\.module, data\.memory)/pkg.default({ module_or_path: data.module, memory: data.memory })/' "$helper"
  grep -q 'module_or_path: data.module' "$helper" || { echo "build-worker.sh: $helper no longer starts as expected" >&2; exit 1; }
done

# PHYXEL_WASM_NAMES=1 keeps the functions' names (wasm-opt -g) for a profile
# (tests/bench/worker-profile.test.mjs); the site ships without them (1.2 MB against 2.2).
names=""
[ "${PHYXEL_WASM_NAMES:-0}" = 1 ] && names="-g"
if [ "$profile" = release ]; then
  wasm-opt -O3 $names --enable-simd --output "$out/single/phyxel-worker_bg.wasm" "$out/single/phyxel-worker_bg.wasm"
  wasm-opt -O3 $names --enable-threads --enable-bulk-memory --enable-simd \
    --output "$out/threaded/phyxel-worker_bg.wasm" "$out/threaded/phyxel-worker_bg.wasm"
fi
