#!/usr/bin/env bash
# Builds the playground: the compiler as a WebAssembly module next to the
# static page, in one folder any static file server can serve
# (target/playground/ unless a folder is given).
#
# Needs the wasm32-unknown-unknown target (rustup target add
# wasm32-unknown-unknown) and clang, which compiles tree-sitter's C for it.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
out=${1:-$root/target/playground}

if ! rustup target list --installed 2>/dev/null | grep -qx wasm32-unknown-unknown; then
    echo "error: the wasm32-unknown-unknown target is missing; run: rustup target add wasm32-unknown-unknown" >&2
    exit 2
fi
if ! command -v clang >/dev/null; then
    echo "error: clang is missing (it compiles tree-sitter's C to WebAssembly); install it, e.g. apt-get install clang" >&2
    exit 2
fi

cargo build --release --target wasm32-unknown-unknown -p nilang-playground
target_dir=$(cargo metadata --format-version 1 --no-deps |
    python3 -c 'import json, sys; print(json.load(sys.stdin)["target_directory"])')
mkdir -p "$out"
cp playground/web/index.html playground/web/playground.js playground/web/style.css "$out"/
cp "$target_dir/wasm32-unknown-unknown/release/nilang_playground.wasm" "$out"/
echo "the playground is in $out ($(du -h "$out/nilang_playground.wasm" | cut -f1) of WebAssembly)"
