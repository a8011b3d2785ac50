#!/usr/bin/env bash
# Checks a proof that a CNF is unsatisfiable with a checker independent of nqueens, by the
# proof's extension:
#   .drat: `rate` (crates.io: a DRAT/DPR checker), installed with cargo when missing from
#          PATH (into $RATE_ROOT, default ~/.cargo);
#   .lrat: the program $LRAT_CHECK names (lrat-check, built by tools/build_drat_trim.sh;
#          cake_lpr), else `lrat-check` on PATH, else tools/check_lrat.py.
# Prints the checker's report; exits 0 when it answers VERIFIED, else non-zero.
#
#   nqueens complete IN --certificate cert.json                # cert.cnf and cert.drat
#   nqueens complete IN --certificate cert.json --proof lrat   # cert.cnf and cert.lrat
#   tools/check_proof.sh cert.cnf cert.drat
set -euo pipefail
if [ $# -ne 2 ]; then
  echo "usage: tools/check_proof.sh CNF PROOF (.drat or .lrat)" >&2
  exit 2
fi
case "$2" in
  *.lrat)
    checker="${LRAT_CHECK:-$(command -v lrat-check || true)}"
    if [ -z "$checker" ]; then
      checker="python3 $(dirname "$0")/check_lrat.py"
    fi
    echo "tools/check_proof.sh: checking with $checker" >&2
    out="$($checker "$1" "$2")" || { echo "$out"; exit 1; }
    echo "$out"
    # lrat-check prints "c VERIFIED", tools/check_lrat.py "s VERIFIED"; both "NOT VERIFIED"
    # otherwise.
    echo "$out" | grep -qxE "[cs] VERIFIED"
    exit 0
    ;;
  *.drat) ;;
  *)
    echo "tools/check_proof.sh: $2: a proof ends in .drat or .lrat" >&2
    exit 2
    ;;
esac
rate_bin="$(command -v rate || true)"
if [ -z "$rate_bin" ]; then
  root="${RATE_ROOT:-$HOME/.cargo}"
  rate_bin="$root/bin/rate"
  if [ ! -x "$rate_bin" ]; then
    echo "tools/check_proof.sh: installing the proof checker rate (cargo install --root $root rate)" >&2
    cargo install --quiet --locked --version 0.3.0 --root "$root" rate >&2
  fi
fi
# rate reads a proof by its extension (.drat or .dpr); its report ends in `s VERIFIED` or
# `s NOT VERIFIED`, and its exit code is 0 only for the first.
out="$("$rate_bin" "$1" "$2")" || { echo "$out"; exit 1; }
echo "$out"
echo "$out" | grep -qx "s VERIFIED"
