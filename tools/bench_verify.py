#!/usr/bin/env python3
"""Benchmark of `nqueens generate solution` and `nqueens verify` (issue: Foundation).

For each n, generates the constructed solution as NQB raw and NQB zstd, then verifies each
file several times; reports wall time, rows per second and peak RSS (of the nqueens process,
from getrusage), plus file sizes. Files are verified warm (in the page cache), as right after
writing them; run with --drop-caches as root to measure cold reads.

Usage: tools/bench_verify.py [--n 1e6,1e8,1e9] [--dir bench-out] [--repeat 3] [--keep]
                             [--random] [--scratch DIR]
Prints a Markdown table for BENCHMARKS.md.

With --random the solutions are random (`generate solution --random --seed 1`, whose
diagonals are touched in no order, unlike the constructed one's), and a naive single-thread
C loop (the peer for verify: read the raw file, set three bits per row, count the bits
already set) is built with gcc -O2 in a scratch directory outside the project and timed on
the raw file beside `nqueens verify` (its time includes reading the file, as ours does).
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


NAIVE_C = r"""
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
/* Naive verifier: one thread, three bitmaps, one test-and-set per line per row. */
int main(int argc, char **argv) {
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    FILE *f = fopen(argv[1], "rb");
    if (!f) return 2;
    unsigned char header[64];
    if (fread(header, 1, 64, f) != 64) return 2;
    uint64_t n = 0;
    memcpy(&n, header + 16, 8);
    uint32_t *rows = malloc(n * 4);
    if (fread(rows, 4, n, f) != n) return 2;
    uint64_t *col = calloc(n / 64 + 2, 8), *d1 = calloc(2 * n / 64 + 2, 8), *d2 = calloc(2 * n / 64 + 2, 8);
    uint64_t taken = 0, k = 0;
    for (uint64_t i = 1; i <= n; i++) {
        uint64_t v = rows[i - 1];
        if (v == 0 || v > n) continue;
        k++;
        uint64_t a = v, b = n + v - i, c = i + v;
        taken += (col[a >> 6] >> (a & 63)) & 1; col[a >> 6] |= 1ull << (a & 63);
        taken += (d1[b >> 6] >> (b & 63)) & 1; d1[b >> 6] |= 1ull << (b & 63);
        taken += (d2[c >> 6] >> (c & 63)) & 1; d2[c >> 6] |= 1ull << (c & 63);
    }
    clock_gettime(CLOCK_MONOTONIC, &t1);
    printf("%llu %llu %.6f\n", (unsigned long long)k, (unsigned long long)taken,
           (t1.tv_sec - t0.tv_sec) + (t1.tv_nsec - t0.tv_nsec) / 1e9);
    return 0;
}
"""


def build_naive(scratch):
    src, exe = os.path.join(scratch, "naive_verify.c"), os.path.join(scratch, "naive_verify")
    open(src, "w").write(NAIVE_C)
    subprocess.run(["gcc", "-O2", "-o", exe, src], check=True)
    return exe


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
    ap.add_argument("--random", action="store_true", help="random solutions, against a naive C loop")
    ap.add_argument("--scratch", help="where to build the naive C loop (default: a temporary directory)")
    a = ap.parse_args()
    if a.random:
        return random_files(a)
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


def random_files(a):
    scratch = a.scratch or tempfile.mkdtemp(prefix="nqueens-verify-")
    if os.path.abspath(scratch).startswith(ROOT + os.sep):
        sys.exit("the scratch directory must lie outside the project")
    os.makedirs(scratch, exist_ok=True)
    naive = build_naive(scratch)
    subprocess.run(["cargo", "build", "--release", "--quiet"], cwd=ROOT, check=True)
    os.makedirs(a.dir, exist_ok=True)
    model = next((l.split(":", 1)[1].strip() for l in open("/proc/cpuinfo") if l.startswith("model name")), "?")
    flags = next((l.split(":", 1)[1].split() for l in open("/proc/cpuinfo") if l.startswith("flags")), [])
    simd = [f for f in ("avx2", "bmi2", "avx512f") if f in flags]
    print(f"CPU: {model}, {os.cpu_count()} cores, {' '.join(simd)}; date {time.strftime('%Y-%m-%d')}")
    print()
    print(f"| n | file | naive C loop s (best of {a.repeat}) | nqueens verify s (best of {a.repeat}) | naive / ours | peak RSS MiB |")
    print("|---:|---|---:|---:|---:|---:|")
    for n in [int(float(x)) for x in a.n.split(",")]:
        raw = os.path.join(a.dir, f"rand-{n}.nqb")
        zst = raw + ".zst"
        if not os.path.exists(raw):
            run(["generate", "solution", "--random", "--seed", "1", "--n", str(n), "-o", raw])
        if not os.path.exists(zst):
            run(["convert", raw, zst])
        naive_best = None
        for _ in range(a.repeat):
            out = subprocess.run([naive, raw], check=True, capture_output=True, text=True).stdout.split()
            assert int(out[0]) == n and int(out[1]) == 0, out
            t = float(out[2])
            naive_best = t if naive_best is None else min(naive_best, t)
        for path, enc in ((raw, "raw"), (zst, "zstd")):
            best, peak = None, 0
            for _ in range(a.repeat):
                wall, rss, out = run(["verify", "--require-complete", path])
                assert "VALID SOLUTION" in out, out
                best = wall if best is None else min(best, wall)
                peak = max(peak, rss)
            print(f"| {n:.0e} | {enc} | {naive_best:.2f} | {best:.2f} | {naive_best / best:.1f}x | {peak:,.0f} |",
                  flush=True)
        if not a.keep:
            os.remove(raw)
            os.remove(zst)


if __name__ == "__main__":
    main()
