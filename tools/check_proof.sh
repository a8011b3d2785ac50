#!/usr/bin/env bash
# Checks a DRAT proof that a CNF is unsatisfiable with the independent checker `rate`
# (crates.io: a DRAT/DPR checker, not part of nqueens), installing it with cargo when it is
# missing from PATH (into $RATE_ROOT, default ~/.cargo). Prints rate's report; exits 0
# when rate answers `s VERIFIED`, else non-zero.
#
#   nqueens complete IN --certificate cert.json   # INFEASIBLE: cert.cnf and cert.drat
#   tools/check_proof.sh cert.cnf cert.drat
set -euo pipefail
if [ $# -ne 2 ]; then
  echo "usage: tools/check_proof.sh CNF DRAT" >&2
  exit 2
fi
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
