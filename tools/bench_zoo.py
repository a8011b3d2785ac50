#!/usr/bin/env python3
"""Compositions of every origin: nqueens `complete` against a plain min-conflicts search and
CP-SAT, side by side in one run.

Each case is a source solution (`generate solution --source construction|transposed|
mirrored|linear|random`) with a part cleared (`generate composition --clear random|block|
stride|columns|diagonals|region --free F`), at a board size n. Every case is feasible: the
source completes it. For each case the script runs, under the same wall-clock limit:

- ours: `nqueens complete IN -o OUT` (time includes reading and writing the files; the
  output is verified by nqueens itself before it is published);
- min-conflicts: a plain C program written and built here in the scratch directory (never
  part of the project): the free rows get a random permutation of the free columns, then a
  row in conflict (drawn at random, up to 64 draws) and a random partner swap columns while
  the number of diagonal conflicts does not grow, with a restart after 50 m moves without a
  new best; it reads the same NQB file and checks its answer before it says SOLVED;
- CP-SAT (with --cpsat, installed with pip on first use): one variable per free row over its
  free columns, AllDifferent on columns, i + j and i - j, 2 workers; only for residuals of at
  most --cpsat-max free rows.

    python3 tools/bench_zoo.py --n 1e5 --sources construction transposed linear \\
        --clears block columns diagonals --fractions 0.02 0.05 0.1 0.3 --limit 60 --cpsat

Prints one line per case and writes every run to --csv. Defaults reproduce the table in
BENCHMARKS.md ("Compositions of every origin").
"""
import argparse
import csv
import os
import shutil
import struct
import subprocess
import sys
import tempfile
import time

from bench_frontier import cpu  # the CPU model and SIMD flags, as every bench prints them

BASELINE_C = r"""
/* Plain min-conflicts completion of an NQB composition (the bench's baseline). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static uint64_t s = 88172645463325252ull;
static uint64_t rnd(void) { s ^= s << 13; s ^= s >> 7; s ^= s << 17; return s; }
static double now(void) { struct timespec t; clock_gettime(CLOCK_MONOTONIC, &t); return t.tv_sec + 1e-9 * t.tv_nsec; }

int main(int argc, char **argv) {
    if (argc < 3) { fprintf(stderr, "usage: mc FILE.nqb SECONDS [SEED]\n"); return 2; }
    double limit = atof(argv[2]), t0 = now();
    if (argc > 3) s ^= strtoull(argv[3], 0, 10) * 0x9e3779b97f4a7c15ull;
    FILE *f = fopen(argv[1], "rb");
    if (!f) { perror(argv[1]); return 2; }
    unsigned char h[64];
    if (fread(h, 1, 64, f) != 64) return 2;
    uint64_t n; memcpy(&n, h + 16, 8);
    uint32_t *q = malloc(4 * (n + 1));
    if (fread(q + 1, 4, n, f) != n) return 2;
    fclose(f);
    uint8_t *colused = calloc(n + 2, 1);
    uint32_t *d1 = calloc(2 * n + 2, 4), *d2 = calloc(2 * n + 2, 4);
    uint32_t *rows = malloc(4 * n), *cols = malloc(4 * n);
    uint64_t m = 0, mc = 0;
    for (uint64_t i = 1; i <= n; i++) {
        if (q[i]) { colused[q[i]] = 1; d1[n + q[i] - i]++; d2[i + q[i]]++; }
        else rows[m++] = i;
    }
    for (uint64_t j = 1; j <= n; j++) if (!colused[j]) cols[mc++] = j;
    if (m == 0) { printf("SOLVED 0\n"); return 0; }
    #define C1(i, j) (d1[n + (j) - (i)])
    #define C2(i, j) (d2[(i) + (j)])
    for (;;) {
        for (uint64_t k = m - 1; k > 0; k--) { uint64_t r = rnd() % (k + 1); uint32_t t = cols[k]; cols[k] = cols[r]; cols[r] = t; }
        int64_t conf = 0;
        for (uint64_t k = 0; k < m; k++) { conf += C1(rows[k], cols[k])++ > 0; conf += C2(rows[k], cols[k])++ > 0; }
        int64_t best = conf; uint64_t since = 0;
        while (conf > 0 && since < 50 * m + 100000) {
            if ((since & 4095) == 0 && now() - t0 > limit) { printf("UNKNOWN\n"); return 1; }
            /* A row in conflict (up to 64 draws), and a random partner. */
            uint64_t a = rnd() % m, b = rnd() % m;
            for (int t = 0; t < 64 && C1(rows[a], cols[a]) < 2 && C2(rows[a], cols[a]) < 2; t++) a = rnd() % m;
            if (a == b) continue;
            uint64_t ra = rows[a], rb = rows[b], ca = cols[a], cb = cols[b];
            int64_t before = conf;
            conf -= --C1(ra, ca) > 0; conf -= --C2(ra, ca) > 0;
            conf -= --C1(rb, cb) > 0; conf -= --C2(rb, cb) > 0;
            conf += C1(ra, cb)++ > 0; conf += C2(ra, cb)++ > 0;
            conf += C1(rb, ca)++ > 0; conf += C2(rb, ca)++ > 0;
            if (conf > before) {
                conf -= --C1(ra, cb) > 0; conf -= --C2(ra, cb) > 0;
                conf -= --C1(rb, ca) > 0; conf -= --C2(rb, ca) > 0;
                conf += C1(ra, ca)++ > 0; conf += C2(ra, ca)++ > 0;
                conf += C1(rb, cb)++ > 0; conf += C2(rb, cb)++ > 0;
            } else { cols[a] = cb; cols[b] = ca; }
            if (conf < best) { best = conf; since = 0; } else since++;
        }
        if (conf == 0) break;
        for (uint64_t k = 0; k < m; k++) { C1(rows[k], cols[k])--; C2(rows[k], cols[k])--; }
    }
    /* Check the answer from scratch. */
    for (uint64_t k = 0; k < m; k++) q[rows[k]] = cols[k];
    memset(colused, 0, n + 2); memset(d1, 0, 4 * (2 * n + 2)); memset(d2, 0, 4 * (2 * n + 2));
    for (uint64_t i = 1; i <= n; i++) {
        if (!q[i] || colused[q[i]]++ || d1[n + q[i] - i]++ || d2[i + q[i]]++) { printf("WRONG\n"); return 3; }
    }
    printf("SOLVED %lu\n", (unsigned long)m);
    return 0;
}
"""

CPSAT_PY = r"""
import sys, struct, time
import numpy as np
from ortools.sat.python import cp_model
path, limit = sys.argv[1], float(sys.argv[2])
with open(path, 'rb') as f:
    h = f.read(64)
    n = struct.unpack('<Q', h[16:24])[0]
    q = np.frombuffer(f.read(4 * n), dtype='<u4').astype(np.int64)
rows = np.nonzero(q == 0)[0] + 1
used = np.zeros(n + 2, bool); used[q[q > 0]] = True
cols = np.nonzero(~used[1:n + 1])[0] + 1
i = np.arange(1, n + 1)[q > 0]; j = q[q > 0]
d1 = np.zeros(2 * n + 2, bool); d1[n + j - i] = True
d2 = np.zeros(2 * n + 2, bool); d2[i + j] = True
model = cp_model.CpModel()
xs = []
for r in rows:
    ok = cols[~d1[n + cols - r] & ~d2[r + cols]]
    if len(ok) == 0:
        print('INFEASIBLE'); sys.exit(0)
    xs.append(model.NewIntVarFromDomain(cp_model.Domain.FromValues([int(c) for c in ok]), ''))
model.AddAllDifferent(xs)
model.AddAllDifferent([x + int(r) for x, r in zip(xs, rows)])
model.AddAllDifferent([x - int(r) for x, r in zip(xs, rows)])
solver = cp_model.CpSolver()
solver.parameters.max_time_in_seconds = limit
solver.parameters.num_workers = 2
st = solver.Solve(model)
print({cp_model.OPTIMAL: 'SOLVED', cp_model.FEASIBLE: 'SOLVED', cp_model.INFEASIBLE: 'INFEASIBLE'}.get(st, 'UNKNOWN'))
"""


def size(s):
    return int(float(s.replace("^", "e").replace("10e", "1e")))


def run(cmd, limit):
    t = time.monotonic()
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=limit + 30)
        out = (p.stdout + p.stderr).strip()
    except subprocess.TimeoutExpired:
        out = "UNKNOWN (killed)"
    return time.monotonic() - t, out


def verdict(out):
    for word in ("SOLVED", "INFEASIBLE", "UNKNOWN", "WRONG"):
        if word in out.split("\n")[0] or out.startswith(word):
            return word
    for word in ("SOLVED", "INFEASIBLE", "UNKNOWN", "WRONG"):
        if word in out:
            return word
    return "ERROR"


def free_rows(path):
    with open(path, "rb") as f:
        h = f.read(64)
    n, k = struct.unpack("<QQ", h[16:32])
    return n - k


def ensure_cpsat():
    try:
        import ortools  # noqa: F401
        import numpy  # noqa: F401
        return sys.executable
    except ImportError:
        subprocess.run([sys.executable, "-m", "pip", "install", "-q", "ortools", "numpy"],
                       check=True)
        return sys.executable


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--n", nargs="+", default=["1e5"])
    ap.add_argument("--sources", nargs="+", default=["construction", "transposed", "linear"])
    ap.add_argument("--clears", nargs="+", default=["block", "columns", "diagonals"])
    ap.add_argument("--fractions", nargs="+", type=float, default=[0.02, 0.05, 0.1, 0.3])
    ap.add_argument("--seeds", type=int, default=1, help="compositions per case")
    ap.add_argument("--moves", nargs="+", type=int, default=[0],
                    help="given queens moved after clearing (generate composition --move): "
                         "a solution edited by hand")
    ap.add_argument("--limit", type=float, default=60, help="seconds for ours")
    ap.add_argument("--peer-limit", type=float, default=None,
                    help="seconds for min-conflicts and CP-SAT (default: --limit)")
    ap.add_argument("--nqueens", default="target/release/nqueens")
    ap.add_argument("--work", default=None, help="scratch directory (default: a new temporary one)")
    ap.add_argument("--no-baseline", action="store_true")
    ap.add_argument("--cpsat", action="store_true")
    ap.add_argument("--cpsat-max", type=int, default=5000)
    ap.add_argument("--csv", default=None)
    ap.add_argument("--complete-args", default="",
                    help="more options for our complete, e.g. --no-closed-form (search only)")
    args = ap.parse_args()
    peer_limit = args.peer_limit or args.limit

    work = args.work or tempfile.mkdtemp(prefix="nqueens-zoo-")
    os.makedirs(work, exist_ok=True)
    nq = os.path.abspath(args.nqueens)
    model, flags = cpu()
    print(f"# {time.strftime('%Y-%m-%d')}, {model} ({os.cpu_count()} cores; {flags}); "
          f"limit {args.limit} s, peers {peer_limit} s")
    mc = os.path.join(work, "mc")
    if not args.no_baseline and not os.path.exists(mc):
        src = os.path.join(work, "mc.c")
        with open(src, "w") as f:
            f.write(BASELINE_C)
        subprocess.run(["gcc", "-O3", "-march=native", "-o", mc, src], check=True)
    py = ensure_cpsat() if args.cpsat else None
    cp = os.path.join(work, "cpsat.py")
    if py:
        with open(cp, "w") as f:
            f.write(CPSAT_PY)
    rows = []
    print(f"{'n':>10} {'source':>12} {'clear':>10} {'free':>7} {'moved':>5} {'rows':>8}  {'ours':>16} {'min-conflicts':>16} {'cp-sat':>16}")
    for n_text in args.n:
        n = size(n_text)
        for source in args.sources:
            n = size(n_text)
            if source == "linear":
                # q(i) = 2i mod n needs n prime to 6: the next such n.
                while n % 2 == 0 or n % 3 == 0:
                    n += 1
            sol = os.path.join(work, f"{source}-{n}.nqb")
            if not os.path.exists(sol):
                cmd = [nq, "generate", "solution", "--n", str(n), "--source", source, "-q", "-o", sol]
                if source == "random":
                    cmd += ["--seed", "1"]
                p = subprocess.run(cmd, capture_output=True, text=True)
                if p.returncode != 0:
                    print(f"# {source} n={n}: {p.stderr.strip()}")
                    continue
            for clear in args.clears:
                for frac, moves, seed in [(f, k, s) for f in args.fractions for k in args.moves
                                          for s in range(1, args.seeds + 1)]:
                    comp = os.path.join(work, f"{source}-{n}-{clear}-{frac}-{moves}-{seed}.nqb")
                    p = subprocess.run([nq, "generate", "composition", "--from", sol, "--clear", clear,
                                        "--free", str(frac), "--move", str(moves),
                                        "--seed", str(seed), "-q", "-o", comp],
                                       capture_output=True, text=True)
                    if p.returncode != 0:
                        print(f"# {comp}: {p.stderr.strip()}")
                        continue
                    m = free_rows(comp)
                    out = os.path.join(work, "out.nqb")
                    t_ours, o = run([nq, "complete", comp, "-o", out, "--seed", str(seed), "-q",
                                     *args.complete_args.split(),
                                     "--time-limit", str(args.limit)], args.limit)
                    ours = verdict(o)
                    if os.path.exists(out):
                        os.remove(out)
                    base = ("-", 0.0)
                    if not args.no_baseline:
                        t, o = run([mc, comp, str(peer_limit), str(seed)], peer_limit)
                        base = (verdict(o), t)
                    sat = ("-", 0.0)
                    if py and m <= args.cpsat_max:
                        t, o = run([py, cp, comp, str(peer_limit)], peer_limit)
                        sat = (verdict(o), t)
                    cell = lambda v, t: f"{v:>9} {t:6.2f}" if v != "-" else f"{'-':>16}"
                    print(f"{n:>10} {source:>12} {clear:>10} {frac:>7} {moves:>5} {m:>8}  {cell(ours, t_ours)} "
                          f"{cell(*base)} {cell(*sat)}", flush=True)
                    rows.append(dict(n=n, source=source, clear=clear, fraction=frac, moves=moves, seed=seed,
                                     free_rows=m, ours=ours, ours_s=round(t_ours, 3),
                                     baseline=base[0], baseline_s=round(base[1], 3),
                                     cpsat=sat[0], cpsat_s=round(sat[1], 3)))
                    os.remove(comp)
    if args.csv:
        with open(args.csv, "w", newline="") as f:
            w = csv.DictWriter(f, fieldnames=list(rows[0].keys()) if rows else ["n"])
            w.writeheader()
            w.writerows(rows)
    solved = sum(r["ours"] == "SOLVED" for r in rows)
    print(f"# ours solved {solved} of {len(rows)}")
    if not args.work:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
