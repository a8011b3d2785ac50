#!/usr/bin/env bash
# Builds drat-trim (Marijn Heule's DRAT checker, github.com/marijnheule/drat-trim; not part
# of nqueens, not copied into it) in a scratch directory, at a pinned commit, as a second
# independent checker of nqueens' proofs beside rate (tools/check_proof.sh):
#
#   tools/build_drat_trim.sh /tmp/dt [SRC]     # SRC: a checkout or bare git directory
#   /tmp/dt/drat-trim cert.cnf cert.drat       # ends in "s VERIFIED"
#
# Without SRC the sources are cloned from GitHub. Prints the binary's path.
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
# The checker is one C file; the repository's large examples are not needed.
git -C "$dir/src.git" show "$commit:drat-trim.c" > "$dir/drat-trim.c"
gcc -O2 -o "$dir/drat-trim" "$dir/drat-trim.c"
echo "$dir/drat-trim"
