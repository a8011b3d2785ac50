#!/usr/bin/env python3
"""The Python package against the command line (BENCHMARKS.md, "Python package").

Needs the package built in release mode in the running Python (`pip install .`, or
`maturin build --release` and `pip install target/wheels/*.whl`) and the release binary
(`cargo build --release`, or --cli). Three measures:

1. complete_many over B boards of n = 100 (the seed paper's protocol: random solutions,
   K queens kept, K uniform in 1..n-1) against a loop that writes each board to a file and
   runs `nqueens complete FILE -o OUT`, reading OUT back (timed on --loop-boards of them,
   per board).
2. complete of an n = --n board (a random solution with half its rows cleared at random)
   held as an array, against `nqueens complete board.nqb -o solved.nqb` of the same board.
3. read of a raw NQB file of --read-n rows (a read-only np.memmap after the header check),
   and with check=True (the payload checksum too).

    tools/bench_python.py [--boards 10000] [--loop-boards 500] [--n 1e7] [--read-n 1e9]
"""

import argparse
import os
import pathlib
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

import numpy as np

import nqueens

ROOT = pathlib.Path(__file__).resolve().parents[1]


def cpu():
    model, flags = "?", set()
    for line in open("/proc/cpuinfo"):
        if line.startswith("model name") and model == "?":
            model = line.split(":", 1)[1].strip()
        if line.startswith("flags") and not flags:
            flags = set(line.split(":", 1)[1].split())
    simd = [f for f in ("sse4_2", "popcnt", "avx", "avx2", "bmi2", "avx512f", "avx512bw",
                        "avx512vl", "avx512_vpopcntdq") if f in flags]
    return f"{model}, {os.cpu_count()} cores, {' '.join(simd)}"


def best(f, repeat):
    times = []
    for _ in range(repeat):
        t = time.perf_counter()
        out = f()
        times.append(time.perf_counter() - t)
    return min(times), out


def many(args, cli, scratch):
    n = 100
    sols = [nqueens.generate_solution(n, source="random", seed=s) for s in range(100)]
    boards = np.stack([nqueens.generate_composition(sols[i % 100], seed=i) for i in range(args.boards)])
    t, answers = best(lambda: nqueens.complete_many(boards, seed=1), args.repeat)
    statuses = {s: sum(a.status == s for a in answers) for s in ("SOLVED", "INFEASIBLE", "UNKNOWN")}
    per_many = t / len(boards)
    print(f"complete_many: {len(boards)} boards of n = {n} in {t:.3f} s "
          f"({1e6 * per_many:.0f} us per board; {statuses})")
    loop = boards[: args.loop_boards]
    board, out = scratch / "board.txt", scratch / "out.txt"

    def run_loop():
        for i, q in enumerate(loop):
            np.savetxt(board, q, fmt="%d")
            done = subprocess.run([cli, "complete", board, "-o", out, "--seed", "1", "--quiet"],
                                  capture_output=True)
            if done.returncode == 0:
                np.loadtxt(out, dtype=np.uint32)
                out.unlink()

    t_loop, _ = best(run_loop, 1)
    per_loop = t_loop / len(loop)
    print(f"subprocess loop: {len(loop)} boards in {t_loop:.2f} s ({1e3 * per_loop:.2f} ms per board)")
    print(f"complete_many is {per_loop / per_many:.0f}x faster per board (target: 50x)")


def big(args, cli, scratch):
    n = int(float(args.n))
    sol = nqueens.generate_solution(n, source="random", seed=1)
    q = nqueens.generate_composition(sol, free=n // 2, seed=1)
    del sol
    path = scratch / "board.nqb"
    nqueens.write(path, q)
    t_py, r = best(lambda: nqueens.complete(q, seed=1), args.repeat)
    assert r.status == "SOLVED", r.status
    t_read_py, _ = best(lambda: nqueens.complete(nqueens.read(path), seed=1), args.repeat)
    out = scratch / "solved.nqb"

    def cli_run():
        if out.exists():
            out.unlink()
        subprocess.run([cli, "complete", path, "-o", out, "--seed", "1", "--quiet"], check=True,
                       stdout=subprocess.DEVNULL)

    t_cli, _ = best(cli_run, args.repeat)
    assert np.array_equal(nqueens.read(out), r.solution)
    print(f"n = {n:.0e}, half the rows free: nqueens.complete(array) {t_py:.2f} s, "
          f"complete(read(nqb)) {t_read_py:.2f} s; CLI complete board.nqb -o solved.nqb "
          f"{t_cli:.2f} s (best of {args.repeat}; same seed, same solution)")


def read(args, cli, scratch):
    n = int(float(args.read_n))
    free = shutil.disk_usage(scratch).free
    if free < 4 * n + (1 << 30):
        sys.exit(f"read: {4 * n / 1e9:.1f} GB needed for n = {n}, {free / 1e9:.1f} GB free")
    path = scratch / "big.nqb"
    t = time.perf_counter()
    subprocess.run([cli, "generate", "solution", "--n", str(n), "-o", path, "--quiet"], check=True)
    print(f"(generate solution --n {n:.0e}: {time.perf_counter() - t:.1f} s)")
    times = []
    for _ in range(5):
        t0 = time.perf_counter()
        m = nqueens.read(path)
        times.append(time.perf_counter() - t0)
        assert isinstance(m, np.memmap) and m.shape == (n,) and not m.flags.writeable
        del m
    t_check, _ = best(lambda: nqueens.read(path, check=True), 1)
    print(f"read of a raw NQB file of {n:.0e} rows ({4 * n / 1e9:.1f} GB): "
          f"{1e3 * min(times):.2f} ms best, {1e3 * statistics.median(times):.2f} ms median "
          f"of 5 (np.memmap, no copy); with check=True (payload checksum) {t_check:.2f} s")
    path.unlink()


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--boards", type=int, default=10_000)
    p.add_argument("--loop-boards", type=int, default=500)
    p.add_argument("--n", default="1e7")
    p.add_argument("--read-n", default="1e9")
    p.add_argument("--repeat", type=int, default=3)
    p.add_argument("--cli", default=str(pathlib.Path(os.environ.get("CARGO_TARGET_DIR", ROOT / "target")) / "release" / "nqueens"))
    p.add_argument("--only", choices=["many", "big", "read"], action="append")
    p.add_argument("--dir", help="scratch directory (default: a temporary one in the current directory)")
    args = p.parse_args()
    print(f"{time.strftime('%Y-%m-%d')}, nqueens {nqueens.__version__}; {cpu()}")
    with tempfile.TemporaryDirectory(dir=args.dir or ".") as d:
        for part in args.only or ["many", "big", "read"]:
            {"many": many, "big": big, "read": read}[part](args, args.cli, pathlib.Path(d))


if __name__ == "__main__":
    main()
