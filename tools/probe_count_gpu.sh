#!/usr/bin/env bash
# A short look inside the count's GPU kernel, for a machine lent for minutes: what the
# compiler made of it (ptxas's registers and spills, the SASS), Q(19) on the GPU alone at
# each setting, Q(20) with and without the CPU threads, and an Nsight Compute profile of
# one full batch of Q(19) (occupancy, issue rate, stall reasons, the hot instructions).
# tools/bench_count_gpu.sh is the measurement for BENCHMARKS.md; this is for the kernel's
# next change.
#
#   tools/probe_count_gpu.sh BIN OUTDIR [BIN2 ...]
#
# BIN is nqueens built with `--features gpu`; every further BIN (another build of the
# kernel) is timed beside it at its defaults, on the same card. Writes OUTDIR/{info,ptxas,times}.txt,
# OUTDIR/k*.sass and OUTDIR/profile.txt.
set -u
if [ $# -lt 2 ] || [ ! -x "$1" ]; then
  echo "usage: tools/probe_count_gpu.sh BIN OUTDIR [BIN2 ...]" >&2; exit 2
fi
bin=$(realpath "$1"); out=$(realpath -m "$2"); shift 2
others=(); for b in "$@"; do others+=("$(realpath "$b")"); done
mkdir -p "$out" || exit 2
here=$(dirname "$(realpath "$0")")
src="$here/../src/count/batch.cu"
{
  nvidia-smi -L; nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv
  nvcc --version | tail -2; command -v ncu && ncu --version | tail -1
  lscpu | grep -E "Model name|^CPU\(s\)"
} >"$out/info.txt" 2>&1
scratch=$(mktemp -d); trap 'rm -rf "$scratch"' EXIT
log="$out/info.txt"
. "$here/gpu_libs.sh"
if ! gpu_libs; then
  echo "probe_count_gpu.sh: the GPU is not used (why: $out/info.txt)" >&2; cat "$out/info.txt" >&2
  exit 1
fi
echo "LD_LIBRARY_PATH=${LD_LIBRARY_PATH:-}" >>"$out/info.txt"
# The kernel as count 21 --gpu builds it (nodes of free row 4: 13 stack levels, blocks of 128).
for stack in local shared; do
  flag=""; [ $stack = shared ] && flag=-DSTACK_SHARED
  echo "== $stack stacks"
  timeout 60 nvcc -arch=sm_90 -cubin -Xptxas -v -DSTACK_DEPTH=13 -DBLOCK=128 $flag -x cu "$src" \
    -o "$out/k-$stack.cubin" && cuobjdump -sass "$out/k-$stack.cubin" >"$out/k-$stack.sass"
  rm -f "$out/k-$stack.cubin"
done >"$out/ptxas.txt" 2>&1
run() {  # label, then env assignments and count arguments
  local label=$1; shift
  local t0; t0=$(date +%s%N)
  local msg; msg=$(env "$@" 2>&1 >/dev/null | tail -1)
  echo "$label: $(( ($(date +%s%N) - t0) / 1000000 )) ms | $msg"
}
{
  echo "== $bin"
  for depth in 3 4 5; do
    for block in 32 64 128 256; do
      run "Q19 depth $depth block $block shared" NQUEENS_GPU_CPU_THREADS=0 NQUEENS_GPU_DEPTH=$depth \
        NQUEENS_GPU_BLOCK=$block NQUEENS_GPU_STACK=shared timeout 60 "$bin" count 19 --gpu --json
    done
  done
  run "Q19 depth 4 local" NQUEENS_GPU_CPU_THREADS=0 NQUEENS_GPU_DEPTH=4 \
    NQUEENS_GPU_STACK=local timeout 60 "$bin" count 19 --gpu --json
  for b in "$bin" "${others[@]}"; do
    echo "== $b"
    run "Q19 GPU alone" NQUEENS_GPU_CPU_THREADS=0 timeout 60 "$b" count 19 --gpu --json
    run "Q20 GPU alone" NQUEENS_GPU_CPU_THREADS=0 timeout 60 "$b" count 20 --gpu --json
    run "Q20 GPU + CPU" timeout 60 "$b" count 20 --gpu --json
  done
} >"$out/times.txt" 2>&1
if command -v ncu >/dev/null; then
  # The third launch: the first two batches are sized while the rate is not yet known.
  NQUEENS_GPU_CPU_THREADS=0 timeout 120 ncu --clock-control none --launch-skip 2 --launch-count 1 \
    --set full --import-source no -o "$out/profile" "$bin" count 19 --gpu --json >"$out/ncu.txt" 2>&1
  ncu -i "$out/profile.ncu-rep" --page details >"$out/profile.txt" 2>&1
  ncu -i "$out/profile.ncu-rep" --page source --print-source sass --csv >"$out/profile-sass.csv" 2>&1 || true
fi
cat "$out/times.txt"; grep -E "registers|spill|bytes stack" "$out/ptxas.txt"
grep -E "Duration|Achieved Occupancy|Theoretical Occupancy|Issue Slots Busy|Executed Ipc Active|L1/TEX Hit|Block Limit" "$out/profile.txt" 2>/dev/null
