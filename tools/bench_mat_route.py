#!/usr/bin/env python3
"""The seed's route against the binary one (issue "Users' hands, round 2", point 8).

A MATLAB user's `save('Q.mat', 'Q', '-v7.3')` of a 1 x n double: HDF5 behind a 512-byte MAT
header, the dataset (n, 1) float64, chunked and deflated (level 3 by default; chunks as h5py
chooses them unless --chunk-rows says otherwise). The same composition (a random solution with
--free rows cleared) is also written as NQB. Then, side by side, best of --runs:

  complete Q.mat -o out.mat   against   complete Q.nqb -o out.nqb
  verify Q.mat                against   verify Q.nqb

with wall seconds, the ratio, and each run's peak RSS and the engine's own peak anonymous memory
(from --json). Needs numpy and h5py. Usage:
  tools/bench_mat_route.py --dir DIR [--n 1e8] [--free 518] [--runs 3] [--chunk-rows R] [--level 3]
                           [--make-only]
"""
import argparse, json, os, sys, time
import numpy as np
import h5py

# The timed runner (wall, peak RSS, output) and the binary (NQUEENS_BIN, else the release
# build) are the seed workflow's.
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench_seed_workflow import BIN, run  # noqa: E402

BLOCK = 1 << 24


def mat_header(path):
    text = b"MATLAB 7.3 MAT-file, Platform: GLNXA64, Created on: Thu Nov 26 00:00:00 2026 HDF5 schema 1.00 ."
    with open(path, "r+b") as fh:
        fh.write(text.ljust(116, b" ") + b"\x00" * 8 + b"\x00\x02" + b"IM")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--dir", required=True)
    ap.add_argument("--n", default="1e8")
    ap.add_argument("--free", type=int, default=518)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--chunk-rows", type=int, default=0, help="0: h5py's choice")
    ap.add_argument("--level", type=int, default=3)
    ap.add_argument("--make-only", action="store_true", help="write the input files, time nothing")
    ap.add_argument("--mat-args", default="", help="extra options for the MAT complete, e.g. '--mat-class uint32'")
    ap.add_argument("--only", choices=["complete", "verify"], help="time one command only")
    a = ap.parse_args()
    n = int(float(a.n))
    os.makedirs(a.dir, exist_ok=True)
    src = os.path.join(a.dir, f"source-{n}.nqb")
    if not os.path.exists(src):
        code, wall, *_ = run(["generate", "solution", "--random", "--n", str(n), "--seed", "1", "-o", src, "-q"])
        assert code == 0
        print(f"generated {src} in {wall:.1f} s")
    sol = np.memmap(src, dtype="<u4", mode="r", offset=64)
    cleared = np.sort(np.random.default_rng(7).choice(n, size=a.free, replace=False))
    qmat = os.path.join(a.dir, f"Q-{n}.mat")
    qnqb = os.path.join(a.dir, f"Q-{n}.nqb")
    if not os.path.exists(qmat):
        t = time.perf_counter()
        chunks = (a.chunk_rows, 1) if a.chunk_rows else True
        with h5py.File(qmat, "w", userblock_size=512, libver="earliest") as f:
            d = f.create_dataset("Q", shape=(n, 1), dtype=np.float64, chunks=chunks,
                                 compression="gzip", compression_opts=a.level)
            d.attrs["MATLAB_class"] = np.bytes_("double")
            for first in range(0, n, BLOCK):
                block = np.array(sol[first:first + BLOCK], dtype=np.float64)
                inside = cleared[(cleared >= first) & (cleared < first + BLOCK)]
                block[inside - first] = 0
                d[first:first + len(block), 0] = block
            chunk_shape = d.chunks
        mat_header(qmat)
        print(f"{qmat}: {os.path.getsize(qmat):,} bytes, chunks {chunk_shape}, deflate {a.level}, "
              f"written in {time.perf_counter() - t:.1f} s")
    if not os.path.exists(qnqb):
        code, *_ = run(["convert", qmat, qnqb])
        assert code == 0
    if a.make_only:
        return
    print(f"binary: {BIN}")
    jobs = [
        ("complete", ["complete", qmat, "-o", os.path.join(a.dir, "out.mat"), "--json", "--seed", "1"] + a.mat_args.split(),
         ["complete", qnqb, "-o", os.path.join(a.dir, "out.nqb"), "--json", "--seed", "1"]),
        ("verify", ["verify", qmat, "--json"], ["verify", qnqb, "--json"]),
    ]
    print(f"| n | command | MAT s (best of {a.runs}) | NQB s | ratio | MAT peak RSS MiB | MAT own peak MiB |")
    print("|---|---|---:|---:|---:|---:|---:|")
    for name, mat_args, nqb_args in jobs:
        if a.only and name != a.only:
            continue
        best = {}
        for label, args in (("mat", mat_args), ("nqb", nqb_args)):
            for _ in range(a.runs):
                for p in ("out.mat", "out.nqb"):
                    if os.path.exists(os.path.join(a.dir, p)):
                        os.remove(os.path.join(a.dir, p))
                # Every run starts with no dirty pages of an earlier one still being written.
                os.sync()
                code, wall, rss, stdout, err = run(args)
                assert code == 0, (args, code, err)
                anon = None
                try:
                    rec = json.loads(stdout)
                    anon = (rec.get("stats", {}) or {}).get("peak_anonymous_bytes")
                except ValueError:
                    pass
                if label not in best or wall < best[label][0]:
                    best[label] = (wall, rss, anon)
        m, b = best["mat"], best["nqb"]
        own = f"{m[2] / 2**20:.0f}" if m[2] else ""
        label = f"{name} {a.mat_args}".strip()
        print(f"| {n:.0e} | {label} | {m[0]:.2f} | {b[0]:.2f} | {m[0] / b[0]:.2f} | {m[1]:.0f} | {own} |", flush=True)


if __name__ == "__main__":
    main()
