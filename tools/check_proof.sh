#!/usr/bin/env bash
# Checks a proof that a CNF is unsatisfiable with a checker independent of nqueens, by the
# proof's extension:
#   .drat: `rate` (crates.io: a DRAT/DPR checker), installed with cargo when missing from
#          PATH (into $RATE_ROOT, default ~/.cargo);
#   .lrat: the program $LRAT_CHECK names, with its options (LRAT_CHECK="lrat-trim -S
#          --no-trim", built by tools/build_lrat_trim.sh, the fastest; lrat-check, built by
#          tools/build_drat_trim.sh; cake_lpr), else `lrat-trim` or `lrat-check` on PATH,
#          else tools/check_lrat.py; text or binary (--proof lrat-binary: lrat-trim and
#          tools/check_lrat.py read it, lrat-check does not).
# Prints the checker's report; exits 0 when it answers VERIFIED, else non-zero.
#
#   nqueens complete IN --certificate cert.json                # cert.cnf and cert.drat
#   nqueens complete IN --certificate cert.json --proof lrat   # cert.cnf and cert.lrat
#   nqueens complete IN --certificate cert.json --proof lrat-binary   # the same, binary
#   tools/check_proof.sh cert.cnf cert.drat
#
# Given the certificate's document instead, it checks the proof it names, whole or split
# into parts (--proof-parts: cert.top.lrat and cert.part0001.lrat on), each piece against
# the CNF with the clauses it assumes, JOBS pieces at once (default: the cores), by
# tools/check_pieces.py; "s VERIFIED" and exit 0 when every piece is:
#
#   tools/check_proof.sh cert.json [JOBS]
#
# Exit 2 when it cannot check (no checker it can run, a proof its checker does not read).
set -euo pipefail
# A document by any name (cert.txt too): one argument, or one and a number of jobs (a
# proof's name ends in .drat or .lrat).
if [ $# -eq 1 ] || { [ $# -eq 2 ] && [[ "$2" =~ ^[0-9]+$ ]]; }; then
  exec python3 "$(dirname "$0")/check_pieces.py" "$1" ${2:+--jobs "$2"}
fi
if [ $# -ne 2 ]; then
  echo "usage: tools/check_proof.sh CNF PROOF (.drat or .lrat), or CERT.json [JOBS]" >&2
  exit 2
fi
case "$2" in
  *.lrat)
    # The checker as words: LRAT_CHECK may carry options ("lrat-trim -S --no-trim").
    checker=()
    if [ -n "${LRAT_CHECK:-}" ]; then
      read -r -a checker <<< "$LRAT_CHECK"
    elif command -v lrat-trim >/dev/null 2>&1; then
      checker=(lrat-trim -S --no-trim)
    fi
    # A binary proof (--proof lrat-binary) starts with the byte 'a' or 'd'; lrat-check
    # reads text only, and would call a good binary proof NOT VERIFIED.
    first="$(head -c 1 "$2" 2>/dev/null || true)"
    binary=no
    if [ "$first" = a ] || [ "$first" = d ]; then
      binary=yes
    fi
    if [ ${#checker[@]} -eq 0 ] && [ "$binary" = no ] && command -v lrat-check >/dev/null 2>&1; then
      checker=("$(command -v lrat-check)")
    fi
    if [ ${#checker[@]} -eq 0 ]; then
      checker=(python3 "$(dirname "$0")/check_lrat.py")
    fi
    if ! command -v "${checker[0]}" > /dev/null 2>&1; then
      echo "tools/check_proof.sh: the checker ${checker[0]} is not a program this script can run (LRAT_CHECK?)" >&2
      exit 2
    fi
    if [ "$binary" = yes ] && [ "$(basename "${checker[0]}")" = lrat-check ]; then
      echo "tools/check_proof.sh: $2 is binary LRAT, which lrat-check does not read: use lrat-trim or tools/check_lrat.py (unset LRAT_CHECK)" >&2
      exit 2
    fi
    echo "tools/check_proof.sh: checking with ${checker[*]}" >&2
    # lrat-check prints "c VERIFIED" and exits 0, lrat-trim "s VERIFIED" and exits 20 (as
    # SAT solvers do for UNSATISFIABLE), tools/check_lrat.py "s VERIFIED" and exits 0; none
    # prints such a line for a proof it rejects, or one without the empty clause.
    rc=0
    out="$("${checker[@]}" "$1" "$2" 2>&1)" || rc=$?
    echo "$out"
    case "$rc" in 0 | 20) ;; *) exit 1 ;; esac
    # Not `echo | grep -q`: grep leaving at the first match can end echo with SIGPIPE,
    # which pipefail reports as a failure of the whole pipeline.
    grep -xE "[cs] VERIFIED" <<< "$out" > /dev/null
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
    cargo install --quiet --locked --version 0.3.0 --root "$root" rate >&2 || {
      echo "tools/check_proof.sh: could not install rate: no DRAT checker to run" >&2
      exit 2
    }
  fi
fi
# rate reads a proof by its extension (.drat or .dpr); its report ends in `s VERIFIED` or
# `s NOT VERIFIED`, and its exit code is 0 only for the first.
out="$("$rate_bin" "$1" "$2")" || { echo "$out"; exit 1; }
echo "$out"
grep -x "s VERIFIED" <<< "$out" > /dev/null
