#!/bin/sh
# Trunk post-build hook: the 3D demo's WebAssembly module (crates/phyxel-view), built beside the
# lessons' module. Trunk builds one main `rel="rust"` module per site, so this adds the second the
# way Trunk builds the first: cargo → wasm-bindgen --target web → wasm-opt -O3 (release only).
# The 3D demo carries the wgpu renderer (≈ 1 MB gzipped); keeping it out of the lessons' module keeps
# their pages light.
set -eu
profile=${TRUNK_PROFILE:-release}
out=${TRUNK_STAGING_DIR:-dist}
target=${CARGO_TARGET_DIR:-target}
if [ "$profile" = release ]; then
  cargo build --release --target wasm32-unknown-unknown -p phyxel-view
else
  cargo build --target wasm32-unknown-unknown -p phyxel-view
fi
wasm-bindgen --target web --no-typescript --out-dir "$out" --out-name phyxel-view \
  "$target/wasm32-unknown-unknown/$profile/phyxel_view.wasm"
if [ "$profile" = release ]; then
  wasm-opt -O3 --output "$out/phyxel-view_bg.wasm" "$out/phyxel-view_bg.wasm"
fi
