#!/usr/bin/env python3
"""Excluded Diagonals at the frontier: nqueens against CaDiCaL, side by side.

Instances come from `nqueens generate excluded` (the generator described by Gent, Jefferson
and Nightingale: the 4n - 2 diagonals in a random order, each excluded unless that leaves a
row or column with fewer than 4 allowed cells; the instance is the first d excluded).
nqueens reads the instance file itself (reduced to a completion board of about 266n rows);
CaDiCaL gets a direct CNF of the same n x n instance written here: one variable per allowed
cell, exactly one queen per row and column, at most one per diagonal (pairwise). Both get
the same wall-clock limit. Prints one line per run and a summary per (n, d/n); writes every
run to the CSV named by --csv.

    python3 tools/bench_frontier.py --n 21 23 25 --ratio 0.9 1.0 --seeds 10 --limit 60 \\
        --nqueens target/release/nqueens --csv /tmp/frontier.csv
"""
import argparse
import csv
import json
import os
import platform
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time


def cpu():
    model, flags = platform.processor(), ""
    try:
        with open("/proc/cpuinfo") as f:
            text = f.read()
        model = re.search(r"model name\s*:\s*(.*)", text).group(1)
        have = set(re.search(r"flags\s*:\s*(.*)", text).group(1).split())
        flags = " ".join(sorted(f for f in have if f.startswith(("avx", "bmi", "sse4"))))
    except (OSError, AttributeError):
        pass
    return model, flags


def parse_instance(path):
    text = open(path).read()
    n = int(re.search(r"n\s*=\s*(\d+)", text).group(1))
    numdiags = int(re.search(r"numdiags\s*=\s*(\d+)", text).group(1))
    pairs = re.findall(r"\[\s*(\d+)\s*,\s*([01])\s*\]", text)
    return n, [(int(d), int(t)) for d, t in pairs[:numdiags]]


def direct_cnf(n, excluded, path):
    """The n x n instance as CNF: cells on an excluded diagonal have no variable."""
    sums = {d for d, t in excluded if t == 1}
    diffs = {d for d, t in excluded if t == 0}
    var = {}
    for r in range(n):
        for c in range(n):
            if (r + c) not in sums and (r - c + n - 1) not in diffs:
                var[(r, c)] = len(var) + 1
    clauses = []

    def exactly_one(vs):
        clauses.append(vs)
        at_most_one(vs)

    def at_most_one(vs):
        for i in range(len(vs)):
            for j in range(i + 1, len(vs)):
                clauses.append([-vs[i], -vs[j]])

    for r in range(n):
        exactly_one([var[(r, c)] for c in range(n) if (r, c) in var])
    for c in range(n):
        exactly_one([var[(r, c)] for r in range(n) if (r, c) in var])
    for s in range(2 * n - 1):
        at_most_one([v for (r, c), v in var.items() if r + c == s])
        at_most_one([v for (r, c), v in var.items() if r - c + n - 1 == s])
    with open(path, "w") as f:
        f.write(f"p cnf {len(var)} {len(clauses)}\n")
        for cl in clauses:
            f.write(" ".join(map(str, cl)) + " 0\n")


def run_nqueens(nq, inst, limit):
    t = time.monotonic()
    p = subprocess.run(
        [nq, "complete", inst, "--seed", "1", "--time-limit", str(limit), "--json"],
        capture_output=True, text=True)
    wall = time.monotonic() - t
    try:
        doc = json.loads(p.stdout)
        answer = doc["answer"].upper()
        nodes = int(doc["stats"]["search_nodes"])
        decisions = int(doc["stats"].get("search_decisions", 0))
        engine = float(doc["stats"]["exact"]["seconds"])
    except (ValueError, KeyError) as e:
        sys.exit(f"nqueens on {inst}: exit {p.returncode}, {e}: {p.stdout[:200]} {p.stderr[:200]}")
    return answer, wall, nodes, decisions, engine


def run_cadical(cad, cnf, limit):
    t = time.monotonic()
    try:
        p = subprocess.run([cad, "-q", "-n", "-t", str(int(limit)), cnf], capture_output=True, text=True,
                           timeout=limit + 5)
        code = p.returncode
    except subprocess.TimeoutExpired:
        code = 0
    wall = time.monotonic() - t
    answer = {10: "SOLVED", 20: "INFEASIBLE"}.get(code, "UNKNOWN")
    if wall > limit:
        answer = "UNKNOWN"
    return answer, wall


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--n", type=int, nargs="+", default=[21, 23, 25])
    ap.add_argument("--ratio", type=float, nargs="+", default=[0.9, 1.0])
    ap.add_argument("--seeds", type=int, default=10)
    ap.add_argument("--first-seed", type=int, default=1)
    ap.add_argument("--limit", type=float, default=60)
    ap.add_argument("--nqueens", default="target/release/nqueens")
    ap.add_argument("--cadical", default=shutil.which("cadical") or "cadical")
    ap.add_argument("--no-cadical", action="store_true")
    ap.add_argument("--csv", default=None)
    a = ap.parse_args()
    model, flags = cpu()
    print(f"# {model}; {os.cpu_count()} threads; {flags}; limit {a.limit} s", flush=True)
    tmp = tempfile.mkdtemp(prefix="frontier-")
    rows = []
    for n in a.n:
        for ratio in a.ratio:
            d = int(ratio * n + 0.5)
            for seed in range(a.first_seed, a.first_seed + a.seeds):
                inst = os.path.join(tmp, f"ed-{n}-{d}-{seed}.txt")
                subprocess.run([a.nqueens, "generate", "excluded", "--n", str(n), "--seed",
                                str(seed), "--diags", str(d), "-o", inst],
                               check=True, capture_output=True)
                ans, wall, nodes, decisions, engine = run_nqueens(a.nqueens, inst, a.limit)
                row = dict(n=n, d=d, seed=seed, ours=ans, ours_s=round(wall, 3), nodes=nodes,
                           decisions=decisions, engine_s=round(engine, 3),
                           rate=round(nodes / engine) if engine > 0 else 0)
                if not a.no_cadical:
                    cnf = inst[:-4] + ".cnf"
                    direct_cnf(*parse_instance(inst), cnf)
                    cans, cwall = run_cadical(a.cadical, cnf, a.limit)
                    row.update(cadical=cans, cadical_s=round(cwall, 3))
                    if "UNKNOWN" not in (ans, cans) and ans != cans:
                        sys.exit(f"DISAGREEMENT on {inst}: nqueens {ans}, cadical {cans}")
                rows.append(row)
                print(" ".join(f"{k}={v}" for k, v in row.items()), flush=True)
            summarize([r for r in rows if r["n"] == n and r["d"] == d], a.no_cadical)
    if a.csv:
        with open(a.csv, "w", newline="") as f:
            w = csv.DictWriter(f, fieldnames=list(rows[0].keys()))
            w.writeheader()
            w.writerows(rows)
    shutil.rmtree(tmp)


def summarize(rs, no_cadical):
    def stats(key, ok):
        times = [r[key] for r in rs if ok(r)]
        if not times:
            return "none decided"
        return f"median {statistics.median(times):.2f} s, max {max(times):.2f} s"

    ours_ok = lambda r: r["ours"] != "UNKNOWN"
    line = (f"## n={rs[0]['n']} d={rs[0]['d']}: ours decided {sum(map(ours_ok, rs))}/{len(rs)} "
            f"({stats('ours_s', ours_ok)}), rate median "
            f"{statistics.median(r['rate'] for r in rs) / 1e6:.1f} M nodes/s")
    if not no_cadical:
        cad_ok = lambda r: r["cadical"] != "UNKNOWN"
        both = [r for r in rs if ours_ok(r) and cad_ok(r)]
        ratio = (statistics.median(r["cadical_s"] / max(r["ours_s"], 1e-3) for r in both)
                 if both else float("nan"))
        line += (f"; cadical decided {sum(map(cad_ok, rs))}/{len(rs)} "
                 f"({stats('cadical_s', cad_ok)}); on both: cadical/ours median {ratio:.1f}x")
    print(line, flush=True)


if __name__ == "__main__":
    main()
