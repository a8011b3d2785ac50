#!/usr/bin/env python3
"""Benchmark of `nqueens generate solution` and `nqueens verify` (issue: Foundation).

For each n, generates the constructed solution as NQB raw and NQB zstd, then verifies each
file several times; reports wall time, rows per second and peak RSS (of the nqueens process,
from getrusage), plus file sizes. Files are verified warm (in the page cache), as right after
writing them; run with --drop-caches as root to measure cold reads.

Usage: tools/bench_verify.py [--n 1e6,1e8,1e9] [--dir bench-out] [--repeat 3] [--keep]
Prints a Markdown table for BENCHMARKS.md.
"""
import argparse, os, subprocess, sys, tempfile, time, platform

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BIN = os.path.join(ROOT, "target", "release", "nqueens")


def run(args):
    """Runs nqueens; returns (wall seconds, peak RSS in MiB of that process, stdout)."""
    with tempfile.TemporaryFile("w+") as out, tempfile.TemporaryFile("w+") as err:
        t = time.perf_counter()
        p = subprocess.Popen([BIN] + args, stdout=out, stderr=err)
        _, status, usage = os.wait4(p.pid, 0)
        wall = time.perf_counter() - t
        out.seek(0)
        err.seek(0)
        if os.waitstatus_to_exitcode(status) != 0:
            sys.exit(f"nqueens {' '.join(args)} failed: {err.read().strip()}")
        return wall, usage.ru_maxrss / 1024, out.read()


def drop_caches():
    subprocess.run(["sync"])
    with open("/proc/sys/vm/drop_caches", "w") as f:
        f.write("3\n")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--n", default="1e6,1e8,1e9")
    ap.add_argument("--dir", default=os.path.join(ROOT, "bench-out"))
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--keep", action="store_true", help="keep the generated files")
    ap.add_argument("--drop-caches", action="store_true")
    a = ap.parse_args()
    subprocess.run(["cargo", "build", "--release", "--quiet"], cwd=ROOT, check=True)
    os.makedirs(a.dir, exist_ok=True)
    print(f"machine: {platform.machine()}, {os.cpu_count()} cores, "
          f"{os.sysconf('SC_PAGE_SIZE') * os.sysconf('SC_PHYS_PAGES') / 2**30:.0f} GiB; "
          f"date {time.strftime('%Y-%m-%d')}")
    print()
    print("| n | encoding | file size | generate s | verify s (best of %d) | rows/s | peak RSS MiB |" % a.repeat)
    print("|---:|---|---:|---:|---:|---:|---:|")
    for n in [int(float(x)) for x in a.n.split(",")]:
        for enc, ext in [("raw", "nqb"), ("zstd", "nqb.zst")]:
            path = os.path.join(a.dir, f"sol-{n}.{ext}")
            gen, _, _ = run(["generate", "solution", "--n", str(n), "-o", path])
            best, peak = None, 0
            for _ in range(a.repeat):
                if a.drop_caches:
                    drop_caches()
                wall, rss, out = run(["verify", "--require-complete", path])
                assert "VALID SOLUTION" in out, out
                best = wall if best is None else min(best, wall)
                peak = max(peak, rss)
            size = os.path.getsize(path)
            print(f"| {n:.0e} | {enc} | {size / 2**20:,.1f} MiB | {gen:.2f} | {best:.2f} | "
                  f"{n / best / 1e6:,.0f} M | {peak:,.0f} |", flush=True)
            if not a.keep:
                os.remove(path)


if __name__ == "__main__":
    main()
