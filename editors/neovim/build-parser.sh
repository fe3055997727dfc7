#!/usr/bin/env bash
# Compiles the tree-sitter grammar (its committed, generated parser.c) into
# parser/nilang.so, which `require('nilang').setup()` registers with Neovim.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
src="$here/../../tree-sitter-nilang/src"
mkdir -p "$here/parser"
${CC:-cc} -shared -fPIC -O2 -std=c11 -I "$src" "$src/parser.c" -o "$here/parser/nilang.so"
echo "built $here/parser/nilang.so"
