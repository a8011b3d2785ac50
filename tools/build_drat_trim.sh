#!/usr/bin/env bash
# Builds drat-trim and lrat-check (Marijn Heule's DRAT and LRAT checkers,
# github.com/marijnheule/drat-trim; not part of nqueens, not copied into it) in a scratch
# directory, at a pinned commit: a second independent checker of nqueens' DRAT proofs beside
# rate, and the C checker of its LRAT proofs (tools/check_proof.sh):
#
#   tools/build_drat_trim.sh /tmp/dt [SRC]     # SRC: a checkout or bare git directory
#   /tmp/dt/drat-trim cert.cnf cert.drat       # ends in "s VERIFIED"
#   /tmp/dt/lrat-check cert.cnf cert.lrat      # prints "c VERIFIED"
#
# Without SRC the sources are cloned from GitHub. Prints the binaries' paths.
set -euo pipefail
if [ $# -lt 1 ] || [ $# -gt 2 ]; then
  echo "usage: tools/build_drat_trim.sh DIR [SRC]" >&2
  exit 2
fi
dir="$1"
src="${2:-https://github.com/marijnheule/drat-trim}"
commit=effa1dcce85c878236f8313133dff1a2b766cd7c
mkdir -p "$dir"
if [ ! -d "$dir/src.git" ]; then
  git clone --quiet --bare "$src" "$dir/src.git"
fi
# Each checker is one C file; the repository's large examples are not needed.
for tool in drat-trim lrat-check; do
  git -C "$dir/src.git" show "$commit:$tool.c" > "$dir/$tool.c"
  gcc -O2 -o "$dir/$tool" "$dir/$tool.c"
  echo "$dir/$tool"
done
