#!/usr/bin/env bash
# Coverage-guided fuzzing of every reader with AFL++ through cargo-afl (stable toolchain).
#   cargo install cargo-afl          # builds AFL++ and its LLVM runtime
#   tools/fuzz_afl.sh SECONDS [TARGET...]   # default: every target, SECONDS each
# Targets: nqb (raw and zstd), mat (v4, v5, v7, v7.3, plain HDF5), text, octave (text, binary,
# gzip), csplib (completion and Excluded Diagonals), dimacs (SAT models), npy, merge (count
# records), answer (a MAT input completed into a v7.3 answer: the patched input's chunk index). Findings: $OUT/TARGET/default/crashes; each
# crash found is fixed and kept in tests/data/bad (RELIABILITY.md).
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
secs="${1:?usage: fuzz_afl.sh SECONDS [TARGET...]}"; shift
targets=("$@"); [ ${#targets[@]} -gt 0 ] || targets=(nqb mat text octave csplib dimacs npy merge answer)
out="${AFL_OUT:-$root/target/afl}"
export CARGO_TARGET_DIR="${AFL_TARGET_DIR:-$root/target/afl-build}"
(cd "$root/fuzz/afl" && cargo afl build --release)
bin="$CARGO_TARGET_DIR/release/nqueens-afl"
export AFL_NO_UI=1 AFL_SKIP_CPUFREQ=1 AFL_I_DONT_CARE_ABOUT_MISSING_CRASHES=1
for t in "${targets[@]}"; do
  seeds="$out/seeds-$t"; rm -rf "$seeds"; mkdir -p "$seeds"
  d="$root/tests/data"
  case $t in
    nqb)
      "$root/target/release/nqueens" generate solution --n 13 -o "$seeds/s13.nqb"
      "$root/target/release/nqueens" generate solution --n 601 -o "$seeds/s601.nqbz"
      "$root/target/release/nqueens" convert "$d/grigoryan-n100-k47.txt" "$seeds/k47.nqb" ;;
    mat) cp "$d"/mat/h5py-*.mat "$d"/mat/scipy-double-row-v7.mat "$d"/mat/octave-v6.mat \
            "$d"/octave/*.h5 "$d"/octave/*v4*.mat "$d"/bad/octave-*.h5 "$d"/bad/hdf5-*.h5 "$seeds/" ;;
    answer) cp "$d"/mat/h5py-v73-patchable*.mat "$d"/mat/h5py-v73-double-chunked.mat "$seeds/" ;;
    text) cp "$d"/grigoryan-n100-k47.txt "$seeds/" ;;
    octave) cp "$d"/octave/octave-text-*.txt "$d"/octave/octave-binary-*.mat \
               "$d"/octave/octave-zip-*.mat "$d"/bad/octave-*.txt "$seeds/" ;;
    npy) cp "$d"/npy/*.npy "$seeds/" ;;
    merge) for i in 0 1; do "$root/target/release/nqueens" count 9 --shard $i/2 --json; done > "$seeds/shards.json" ;;
    csplib) cp "$d"/csplib/nauck-1850.param "$d"/csplib/ed-10-infeasible-1.txt "$seeds/" ;;
    dimacs) printf 's SATISFIABLE\nv 1 -2 3 -4 5 0\n' > "$seeds/m.sat" ;;
  esac
  rm -rf "$out/$t"
  NQUEENS_FUZZ_TARGET=$t cargo afl fuzz -i "$seeds" -o "$out/$t" -V "$secs" "$bin" > "$out/$t.log" 2>&1 || true
  grep -a "Statistics" "$out/$t.log" | tail -1 | sed "s/^/$t: /"
done
