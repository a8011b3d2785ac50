#!/usr/bin/env bash
# The GPU measurement in one go, for a machine lent for minutes (issue "Count on the GPU"):
# checks that `count --gpu` runs on the GPU and gives the published counts (whole, a shard
# beside the CPU's, and a count stopped by SIGTERM and resumed from its checkpoint), then
# runs tools/bench_count_gpu.py (tuning at n = 19, then the tables) within a deadline.
# The checks take about a minute of it (each capped by `timeout`).
#
#   tools/bench_count_gpu.sh BIN OUTDIR [DEADLINE_SECONDS] [bench_count_gpu.py options]
#
# BIN is nqueens built with `--features gpu`. Writes OUTDIR/{smoke,bench}.txt and
# OUTDIR/runs.jsonl; exits 1 at once, with what it found, when the GPU is not used.
set -u
usage="usage: tools/bench_count_gpu.sh BIN OUTDIR [DEADLINE_SECONDS] [bench_count_gpu.py options]"
if [ $# -lt 2 ] || [ ! -x "${1:-}" ] || [ -z "${2:-}" ]; then
  echo "$usage" >&2; [ $# -ge 1 ] && [ ! -x "$1" ] && echo "bench_count_gpu.sh: $1: not an executable" >&2
  exit 2
fi
case "${3:-420}" in *[!0-9]*|'') echo "$usage (DEADLINE_SECONDS: a whole number)" >&2; exit 2;; esac
bin=$(realpath "$1"); out=$(realpath -m "$2"); deadline=${3:-420}; shift 3 2>/dev/null || shift $#
mkdir -p "$out" || exit 2
scratch=$(mktemp -d); trap 'rm -rf "$scratch"' EXIT
here=$(dirname "$(realpath "$0")")
started=$(date +%s)
{
  nvidia-smi -L; nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv
  command -v nvcc >/dev/null && nvcc --version | tail -2
  lscpu | grep -E "Model name|^CPU\(s\)"
} >"$out/smoke.txt" 2>&1
log="$out/smoke.txt"
. "$here/gpu_libs.sh"
if ! gpu_libs; then
  echo "bench_count_gpu.sh: the GPU is not used (why: $out/smoke.txt)" >&2
  exit 1
fi
{
  echo "LD_LIBRARY_PATH=${LD_LIBRARY_PATH:-}"
  for stack in local shared; do
    for n in 12 14 16; do
      echo "== count $n --gpu, GPU alone, stacks $stack"
      NQUEENS_GPU_STACK=$stack NQUEENS_GPU_CPU_THREADS=0 timeout 30 "$bin" count $n --gpu --json; echo "exit $?"
    done
  done
  for depth in 1 8; do
    echo "== count 15 --gpu, GPU alone, nodes of free row $depth"
    NQUEENS_GPU_DEPTH=$depth NQUEENS_GPU_CPU_THREADS=0 timeout 30 "$bin" count 15 --gpu --json; echo "exit $?"
  done
  echo "== count 18 --gpu with every CPU thread beside the GPU"
  NQUEENS_GPU_CPU_THREADS=$(nproc) timeout 60 "$bin" count 18 --gpu --json; echo "exit $?"
  d="$scratch/counts"; mkdir -p "$d"
  echo "== count 19 --shard 1/3: --gpu with a checkpoint, and on the CPU"
  timeout 60 "$bin" count 19 --shard 1/3 --gpu --checkpoint "$d/s.json" --json; echo "exit $?"
  NQUEENS_COUNT_ENGINE=constellations timeout 60 "$bin" count 19 --shard 1/3 --json; echo "exit $?"
  echo "== count 20 --gpu --checkpoint, SIGTERM after 3 s, then resumed"
  timeout -s TERM 3 "$bin" count 20 --gpu --checkpoint "$d/c.json" --json; echo "exit $?"
  timeout 60 "$bin" count 20 --gpu --checkpoint "$d/c.json" --json; echo "exit $?"
} >>"$out/smoke.txt" 2>&1
left=$((deadline - ($(date +%s) - started)))
python3 "$here/bench_count_gpu.py" --bin "$bin" --deadline "$left" --log "$out/runs.jsonl" \
  --scratch "$scratch/bench" \
  --tune 19 --skip-peer "$@" >"$out/bench.txt" 2>&1
echo "bench exit $?" >>"$out/bench.txt"
