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
Where the machine has libzstd.so.1 the same loop is also timed on the zstd file, which it
reads whole and decodes with libzstd's streaming decoder before marking: the naive loop of
a user holding only the compressed file.
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
#ifdef WITH_ZSTD
/* libzstd's stable streaming API, declared here so that only the shared library is needed
   (machines here have libzstd.so.1 but not always its header). */
typedef struct ZSTD_DCtx_s ZSTD_DStream;
typedef struct { const void *src; size_t size; size_t pos; } ZSTD_inBuffer;
typedef struct { void *dst; size_t size; size_t pos; } ZSTD_outBuffer;
ZSTD_DStream *ZSTD_createDStream(void);
size_t ZSTD_decompressStream(ZSTD_DStream *, ZSTD_outBuffer *, ZSTD_inBuffer *);
unsigned ZSTD_isError(size_t);
#endif
/* Naive verifier: one thread, three bitmaps, one test-and-set per line per row. A raw NQB
   file is read whole; a zstd one (built WITH_ZSTD) is read whole and decoded whole with
   libzstd's streaming decoder, the way a plain C program would. */
int main(int argc, char **argv) {
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    FILE *f = fopen(argv[1], "rb");
    if (!f) return 2;
    unsigned char header[64];
    uint32_t *rows;
    uint64_t n = 0;
    if (fread(header, 1, 4, f) != 4) return 2;
    if (memcmp(header, "\x28\xb5\x2f\xfd", 4) == 0) {
#ifdef WITH_ZSTD
        fseek(f, 0, SEEK_END);
        long size = ftell(f);
        fseek(f, 0, SEEK_SET);
        unsigned char *z = malloc(size);
        if (fread(z, 1, size, f) != (size_t)size) return 2;
        ZSTD_DStream *d = ZSTD_createDStream();
        ZSTD_inBuffer in = {z, (size_t)size, 0};
        ZSTD_outBuffer out = {header, 64, 0};
        while (out.pos < 64)
            if (ZSTD_isError(ZSTD_decompressStream(d, &out, &in)) || in.pos == in.size) return 2;
        memcpy(&n, header + 16, 8);
        rows = malloc(n * 4);
        ZSTD_outBuffer body = {rows, n * 4, 0};
        while (in.pos < in.size)
            if (ZSTD_isError(ZSTD_decompressStream(d, &body, &in))) return 2;
        if (body.pos != n * 4) return 2;
        free(z);
#else
        return 3;
#endif
    } else {
        if (fread(header + 4, 1, 60, f) != 60) return 2;
        memcpy(&n, header + 16, 8);
        rows = malloc(n * 4);
        if (fread(rows, 4, n, f) != n) return 2;
    }
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


def libzstd():
    """The path of the shared libzstd, or None."""
    out = subprocess.run(["ldconfig", "-p"], capture_output=True, text=True).stdout
    for line in out.splitlines():
        if line.strip().startswith("libzstd.so.1 ("):
            return line.split("=>")[-1].strip()
    return None


def build_naive(scratch):
    """Builds the naive loop; returns (its path, whether it reads zstd files too)."""
    src, exe = os.path.join(scratch, "naive_verify.c"), os.path.join(scratch, "naive_verify")
    open(src, "w").write(NAIVE_C)
    lib = libzstd()
    if lib:
        subprocess.run(["gcc", "-O2", "-DWITH_ZSTD", "-o", exe, src, lib], check=True)
    else:
        print("libzstd.so.1 not found: the naive loop reads raw files only", file=sys.stderr)
        subprocess.run(["gcc", "-O2", "-o", exe, src], check=True)
    return exe, lib is not None


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
    naive, naive_zstd = build_naive(scratch)
    subprocess.run(["cargo", "build", "--release", "--quiet"], cwd=ROOT, check=True)
    os.makedirs(a.dir, exist_ok=True)
    model = next((l.split(":", 1)[1].strip() for l in open("/proc/cpuinfo") if l.startswith("model name")), "?")
    flags = next((l.split(":", 1)[1].split() for l in open("/proc/cpuinfo") if l.startswith("flags")), [])
    simd = [f for f in ("avx2", "bmi2", "avx512f") if f in flags]
    print(f"CPU: {model}, {os.cpu_count()} cores, {' '.join(simd)}; date {time.strftime('%Y-%m-%d')}")
    print()
    print(f"| n | file | naive C loop on the raw file s | naive C loop on this file s | "
          f"nqueens verify s (each the best of {a.repeat}) | naive (raw) / ours | naive (this file) / ours | peak RSS MiB |")
    print("|---:|---|---:|---:|---:|---:|---:|---:|")

    def naive_best(path):
        best = None
        for _ in range(a.repeat):
            out = subprocess.run([naive, path], check=True, capture_output=True, text=True).stdout.split()
            assert int(out[0]) == n and int(out[1]) == 0, out
            best = float(out[2]) if best is None else min(best, float(out[2]))
        return best

    for n in [int(float(x)) for x in a.n.split(",")]:
        raw = os.path.join(a.dir, f"rand-{n}.nqb")
        zst = raw + ".zst"
        if not os.path.exists(raw):
            run(["generate", "solution", "--random", "--seed", "1", "--n", str(n), "-o", raw])
        if not os.path.exists(zst):
            run(["convert", raw, zst])
        naive_raw = naive_best(raw)
        for path, enc in ((raw, "raw"), (zst, "zstd")):
            same = naive_raw if enc == "raw" else (naive_best(zst) if naive_zstd else None)
            best, peak = None, 0
            for _ in range(a.repeat):
                wall, rss, out = run(["verify", "--require-complete", path])
                assert "VALID SOLUTION" in out, out
                best = wall if best is None else min(best, wall)
                peak = max(peak, rss)
            same_s = f"{same:.2f}" if same else "–"
            same_x = f"{same / best:.1f}x" if same else "–"
            print(f"| {n:.0e} | {enc} | {naive_raw:.2f} | {same_s} | {best:.2f} | {naive_raw / best:.1f}x | "
                  f"{same_x} | {peak:,.0f} |", flush=True)
        if not a.keep:
            os.remove(raw)
            os.remove(zst)


if __name__ == "__main__":
    main()
