#!/usr/bin/env bash
# Builds lrat-trim (Armin Biere's LRAT checker and trimmer, github.com/arminbiere/lrat-trim;
# not part of nqueens, not copied into it) in a scratch directory, at a pinned commit: the
# fastest of the LRAT checkers measured on nqueens' proofs (BENCHMARKS.md, "Proofs").
#
#   tools/build_lrat_trim.sh /tmp/lt [SRC]           # SRC: a checkout or bare git directory
#   /tmp/lt/lrat-trim -S --no-trim cert.cnf cert.lrat  # "s VERIFIED", exit 20
#
# (-S --no-trim: every clause checked, forward; without them only the clauses the empty
# clause depends on are, which is a check of the proof as well.) Without SRC the sources are
# cloned from GitHub. Prints the binary's path.
set -euo pipefail
if [ $# -lt 1 ] || [ $# -gt 2 ]; then
  echo "usage: tools/build_lrat_trim.sh DIR [SRC]" >&2
  exit 2
fi
dir="$1"
src="${2:-https://github.com/arminbiere/lrat-trim}"
commit=80f22c57fb2d74cb72210f5b334a1ffe2160a628
mkdir -p "$dir"
if [ ! -d "$dir/src.git" ]; then
  git clone --quiet --bare "$src" "$dir/src.git"
fi
# The checker is one C file; its configure script only picks these flags.
git -C "$dir/src.git" show "$commit:lrat-trim.c" > "$dir/lrat-trim.c"
gcc -Wall -O3 -DNDEBUG -o "$dir/lrat-trim" "$dir/lrat-trim.c"
echo "$dir/lrat-trim"
