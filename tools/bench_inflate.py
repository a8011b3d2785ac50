#!/usr/bin/env python3
"""Inflate libraries on the chunks of a MATLAB v7.3 file (issue "Users' hands, round 2",
point 8: "a faster inflate where one exists for the field").

Reads the stored (deflated) chunks of a v7.3 variable as they are on disk and times, best of
--runs, whole-chunk inflation by each library: zlib (the C library CPython links), zlib-ng,
Intel ISA-L (igzip) and libdeflate (what `nqueens` uses, through the `libdeflater` crate).
The libraries come from PyPI into a scratch virtual environment (--venv), never into the
project. One thread; MB/s of inflated output. Usage:

  tools/bench_inflate.py --mat Q.mat [--var Q] [--chunks 2000] [--runs 3] [--venv DIR]

Make Q.mat with `tools/bench_mat_route.py --make-only` (MATLAB's double layout, deflate 3).
"""
import argparse, os, subprocess, sys

PACKAGES = ["h5py", "numpy", "isal", "zlib-ng", "deflate"]

INNER = r'''
import sys, time, zlib, h5py
import isal.isal_zlib as igzip
from zlib_ng import zlib_ng
import deflate
path, var, count, runs = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
d = h5py.File(path, "r")[var]
rows = d.chunks[0]
size = rows * d.dtype.itemsize * (d.chunks[1] if len(d.chunks) > 1 else 1)
count = min(count, d.shape[0] // rows)
stored = [d.id.read_direct_chunk((i * rows,) + (0,) * (len(d.shape) - 1))[1] for i in range(count)]
print(f"{count} chunks of {rows} rows: {sum(map(len, stored)):,} bytes stored, "
      f"{count * size:,} inflated")
print("| library | MB/s inflated, one thread |\n|---|---:|", flush=True)
for name, inflate in [("zlib", zlib.decompress), ("zlib-ng", zlib_ng.decompress),
                      ("ISA-L igzip", igzip.decompress),
                      ("libdeflate", lambda b: deflate.zlib_decompress(b, size))]:
    best = min(
        (lambda t: (sum(len(inflate(b)) for b in stored), time.perf_counter() - t)[1])(time.perf_counter())
        for _ in range(runs))
    print(f"| {name} | {count * size / best / 1e6:.0f} |")
'''


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--mat", required=True)
    ap.add_argument("--var", default="Q")
    ap.add_argument("--chunks", type=int, default=2000)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--venv", default="/tmp/nqueens-bench-inflate")
    a = ap.parse_args()
    py = os.path.join(a.venv, "bin", "python")
    if not os.path.exists(py):
        subprocess.run([sys.executable, "-m", "venv", a.venv], check=True)
        subprocess.run([py, "-m", "pip", "install", "-q"] + PACKAGES, check=True)
    print(subprocess.run(["grep", "-m1", "model name", "/proc/cpuinfo"], capture_output=True,
                         text=True).stdout.strip())
    subprocess.run([py, "-c", INNER, a.mat, a.var, str(a.chunks), str(a.runs)], check=True)


if __name__ == "__main__":
    main()
