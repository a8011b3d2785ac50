#!/usr/bin/env python3
"""Excluded Diagonals at the frontier: nqueens against CaDiCaL and CP-SAT, side by side.

Instances come from `nqueens generate excluded` (the generator described by Gent, Jefferson
and Nightingale: the 4n - 2 diagonals in a random order, each excluded unless that leaves a
row or column with fewer than 4 allowed cells; the instance is the first d excluded).
nqueens reads the instance file itself (reduced to a completion board of about 266n rows);
CaDiCaL gets a direct CNF of the same n x n instance written here: one variable per allowed
cell, exactly one queen per row and column, at most one per diagonal (pairwise). CP-SAT
(OR-Tools, with --cpsat: installed from PyPI into a virtual environment by tools/venv.sh)
gets the same model as Boolean constraints (exactly one per row and column, at most one per
diagonal) plus the all-different view (a column variable per row, all different, and so are
column + row and column - row), on as many workers as nqueens has threads. Every solver
gets the same wall-clock limit. Prints one line per run and a summary per (n, d/n); writes every
run to the CSV named by --csv.

    python3 tools/bench_frontier.py --n 21 23 25 --ratio 0.9 1.0 --seeds 10 --limit 60 \\
        --nqueens target/release/nqueens --csv /tmp/frontier.csv [--cpsat]
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


def cpsat_solve(inst, limit, workers):
    """Runs inside the virtual environment's Python (`--cpsat-solve`): prints the answer."""
    from ortools.sat.python import cp_model
    n, excluded = parse_instance(inst)
    sums = {d for d, t in excluded if t == 1}
    diffs = {d for d, t in excluded if t == 0}
    m = cp_model.CpModel()
    x = {(r, c): m.NewBoolVar(f"x{r}_{c}") for r in range(n) for c in range(n)
         if (r + c) not in sums and (r - c + n - 1) not in diffs}
    for r in range(n):
        m.AddExactlyOne([v for (i, _), v in x.items() if i == r])
    for c in range(n):
        m.AddExactlyOne([v for (_, j), v in x.items() if j == c])
    for s in range(2 * n - 1):
        m.AddAtMostOne([v for (i, j), v in x.items() if i + j == s])
        m.AddAtMostOne([v for (i, j), v in x.items() if i - j + n - 1 == s])
    q = []
    for r in range(n):
        cols = [c for c in range(n) if (r, c) in x]
        v = m.NewIntVarFromDomain(cp_model.Domain.FromValues(cols), f"q{r}")
        for c in cols:
            m.Add(v == c).OnlyEnforceIf(x[(r, c)])
        q.append(v)
    m.AddAllDifferent(q)
    m.AddAllDifferent([q[r] + r for r in range(n)])
    m.AddAllDifferent([q[r] - r for r in range(n)])
    solver = cp_model.CpSolver()
    solver.parameters.max_time_in_seconds = limit
    solver.parameters.num_workers = workers
    status = solver.Solve(m)
    print({cp_model.OPTIMAL: "SOLVED", cp_model.FEASIBLE: "SOLVED",
           cp_model.INFEASIBLE: "INFEASIBLE"}.get(status, "UNKNOWN"))


def run_cpsat(python, inst, limit):
    t = time.monotonic()
    try:
        p = subprocess.run([python, os.path.abspath(__file__), "--cpsat-solve", inst,
                            "--limit", str(limit)], capture_output=True, text=True,
                           timeout=limit + 30)
        out = p.stdout.strip().splitlines()
        answer = out[-1] if p.returncode == 0 and out else "UNKNOWN"
        if p.returncode != 0:
            sys.exit(f"cp-sat on {inst}: exit {p.returncode}: {p.stderr[-300:]}")
    except subprocess.TimeoutExpired:
        answer = "UNKNOWN"
    wall = time.monotonic() - t
    if wall > limit:
        answer = "UNKNOWN"
    return answer, wall


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
    ap.add_argument("--diags", type=int, nargs="+", default=None,
                    help="excluded diagonals per instance (instead of --ratio x n)")
    ap.add_argument("--seeds", type=int, default=10)
    ap.add_argument("--first-seed", type=int, default=1)
    ap.add_argument("--limit", type=float, default=60)
    ap.add_argument("--nqueens", default="target/release/nqueens")
    ap.add_argument("--cadical", default=shutil.which("cadical") or "cadical")
    ap.add_argument("--no-cadical", action="store_true")
    ap.add_argument("--cpsat", action="store_true",
                    help="also run CP-SAT (OR-Tools from PyPI, in the virtual environment "
                         "--cpsat-venv, made by tools/venv.sh when missing)")
    ap.add_argument("--cpsat-venv", default=os.path.join(tempfile.gettempdir(), "cpsat-venv"))
    ap.add_argument("--cpsat-solve", metavar="INSTANCE", help=argparse.SUPPRESS)
    ap.add_argument("--csv", default=None)
    a = ap.parse_args()
    if a.limit <= 0 or a.seeds < 1:
        ap.error("--limit must be positive and --seeds at least 1")
    if min(a.n) < 1 or min(a.diags or [0]) < 0 or min(a.ratio) < 0:
        ap.error("--n must be at least 1, --diags and --ratio not negative")
    if a.cpsat_solve:
        cpsat_solve(a.cpsat_solve, a.limit, os.cpu_count() or 1)
        return
    cpsat_python = None
    if a.cpsat:
        venv_sh = os.path.join(os.path.dirname(os.path.abspath(__file__)), "venv.sh")
        subprocess.run(["bash", venv_sh, a.cpsat_venv, "import ortools", "ortools"], check=True)
        cpsat_python = os.path.join(a.cpsat_venv, "bin", "python")
    model, flags = cpu()
    print(f"# {model}; {os.cpu_count()} threads; {flags}; limit {a.limit} s", flush=True)
    tmp = tempfile.mkdtemp(prefix="frontier-")
    rows = []
    for n in a.n:
        for d in a.diags or [int(ratio * n + 0.5) for ratio in a.ratio]:
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
                if cpsat_python:
                    pans, pwall = run_cpsat(cpsat_python, inst, a.limit)
                    row.update(cpsat=pans, cpsat_s=round(pwall, 3))
                    if "UNKNOWN" not in (ans, pans) and ans != pans:
                        sys.exit(f"DISAGREEMENT on {inst}: nqueens {ans}, cp-sat {pans}")
                rows.append(row)
                print(" ".join(f"{k}={v}" for k, v in row.items()), flush=True)
            summarize([r for r in rows if r["n"] == n and r["d"] == d], a.no_cadical,
                      cpsat_python is not None)
    if a.csv:
        with open(a.csv, "w", newline="") as f:
            w = csv.DictWriter(f, fieldnames=list(rows[0].keys()))
            w.writeheader()
            w.writerows(rows)
    shutil.rmtree(tmp)


def summarize(rs, no_cadical, cpsat):
    def stats(key, ok):
        times = [r[key] for r in rs if ok(r)]
        if not times:
            return "none decided"
        return f"median {statistics.median(times):.2f} s, max {max(times):.2f} s"

    ours_ok = lambda r: r["ours"] != "UNKNOWN"
    line = (f"## n={rs[0]['n']} d={rs[0]['d']}: ours decided {sum(map(ours_ok, rs))}/{len(rs)} "
            f"({stats('ours_s', ours_ok)}), rate median "
            f"{statistics.median(r['rate'] for r in rs) / 1e6:.1f} M nodes/s")
    def peer(key, name):
        ok = lambda r: r[key] != "UNKNOWN"
        both = [r for r in rs if ours_ok(r) and ok(r)]
        ratio = (statistics.median(r[key + "_s"] / max(r["ours_s"], 1e-3) for r in both)
                 if both else float("nan"))
        return (f"; {name} decided {sum(map(ok, rs))}/{len(rs)} "
                f"({stats(key + '_s', ok)}); on both: {name}/ours median {ratio:.1f}x")

    if not no_cadical:
        line += peer("cadical", "cadical")
    if cpsat:
        line += peer("cpsat", "cp-sat")
    print(line, flush=True)


if __name__ == "__main__":
    main()
