#!/usr/bin/env python3
"""Proofs of exhausted searches: how long the search takes, how long writing its proof
takes, and how long independent checkers take to verify it, DRAT (rate) beside LRAT
(lrat-trim and lrat-check), on the same instances, one after the other on one machine.

With --lrat-trim, the proof is written again as binary LRAT (`--proof lrat-binary`) and
lrat-trim checks that too.

Instances: the CSPLib fixtures that need a search (tests/data/csplib), and Excluded
Diagonals instances from `nqueens generate excluded --n N --diags N+2 --seed S`. Every run
uses `complete --seed 1` and the same --threads; the search's time is the exact phase's
(`stats.exact.seconds` of `--json`), the proof's the rest of the certificate run's wall
time. Prints a Markdown table.

    python3 tools/bench_proofs.py --nqueens target/release/nqueens --lrat-trim \\
        /tmp/lt/lrat-trim --lrat-check /tmp/dt/lrat-check --rate ~/.cargo/bin/rate

With --binary-only --parts K (or auto), the proof is also written split into about K parts
(`--proof-parts K`, cube and conquer; auto: as `complete` splits by default) and every piece checked by lrat-trim, --threads pieces
at once (tools/check_pieces.py): the check's wall time against the search's, and the
checkers' own time summed.

lrat-trim: tools/build_lrat_trim.sh (run as `lrat-trim -S --no-trim`: every clause checked);
lrat-check: tools/build_drat_trim.sh; rate: cargo install --locked --version 0.3.0 rate.
Without --rate no DRAT proof is checked; without --lrat-check, tools/check_lrat.py checks
the LRAT proofs (far slower: its times are no benchmark of LRAT).
"""
import argparse
import json
import os
import platform
import re
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
FIXTURES = ["ed-10-infeasible-1", "ed-12-infeasible-1", "ed-14-infeasible-3"]


def cpu():
    try:
        text = open("/proc/cpuinfo").read()
        model = re.search(r"model name\s*:\s*(.*)", text).group(1)
        flags = set(re.search(r"flags\s*:\s*(.*)", text).group(1).split())
        simd = "AVX-512" if "avx512f" in flags else "AVX2" if "avx2" in flags else "no AVX2"
        return f"{model}, {simd}"
    except (OSError, AttributeError):
        return platform.processor()


def timed(cmd, ok=(0,), env=None):
    t = time.perf_counter()
    out = subprocess.run(cmd, capture_output=True, text=True, env=env)
    dt = time.perf_counter() - t
    if out.returncode not in ok:
        sys.exit(f"{' '.join(cmd)}: exit {out.returncode}: {out.stderr.strip() or out.stdout.strip()}")
    return dt, out.stdout


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--nqueens", default="target/release/nqueens")
    ap.add_argument("--lrat-check")
    ap.add_argument("--lrat-trim")
    ap.add_argument("--rate")
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--generated", nargs="*", default=["18:1", "20:1", "22:2", "22:1"],
                    help="N:SEED[:D] of generated instances (--diags D, default N+2)")
    ap.add_argument("--proof-limit", default="1e6", help="complete --proof-limit")
    ap.add_argument("--fixtures", nargs="*", default=FIXTURES)
    ap.add_argument("--binary-only", action="store_true",
                    help="only binary LRAT, checked by lrat-trim (for proofs of gigabytes)")
    ap.add_argument("--parts", default=None,
                    help="with --binary-only: also the proof split into about this many parts "
                    "(--proof-parts K, or auto: as complete splits by default), every piece "
                    "checked by lrat-trim, --threads at once (tools/check_pieces.py)")
    ap.add_argument("--no-whole", action="store_true",
                    help="with --parts: the split proof only (for proofs too large to write twice)")
    a = ap.parse_args()
    if a.binary_only and not a.lrat_trim:
        sys.exit("--binary-only needs --lrat-trim")
    tmp = tempfile.mkdtemp(prefix="bench-proofs-")
    instances = [(f, os.path.join(HERE, "..", "tests", "data", "csplib", f + ".txt")) for f in a.fixtures]
    for spec in a.generated:
        n, seed, *d = (int(x) for x in spec.split(":"))
        d = d[0] if d else n + 2
        path = os.path.join(tmp, f"n{n}-s{seed}-d{d}.param")
        timed([a.nqueens, "generate", "excluded", "--n", str(n), "--diags", str(d),
               "--seed", str(seed), "-o", path])
        instances.append((f"n {n}, d {d}, seed {seed}", path))
    common = ["--seed", "1", "--threads", str(a.threads), "-q"]
    print(f"CPU: {cpu()}; --threads {a.threads}; {time.strftime('%Y-%m-%d')}")
    print()
    if a.binary_only:
        return binary_only(a, instances, common, tmp)
    print("| instance | search s | LRAT clauses | LRAT MB | write s | lrat-check s | x search |"
          + (" lrat-trim s | x search | binary MB | lrat-trim s | x search |" if a.lrat_trim else "")
          + (" DRAT MB | rate s | x search |" if a.rate else ""))
    print("|---|---:|---:|---:|---:|---:|---:|" + ("---:|---:|---:|---:|---:|" if a.lrat_trim else "")
          + ("---:|---:|---:|" if a.rate else ""))
    for name, path in instances:
        _, out = timed([a.nqueens, "complete", path, "--json"] + common, ok=(3,))
        search = json.loads(out)["stats"]["exact"]["seconds"]
        cert = os.path.join(tmp, "c.json")
        wall, _ = timed([a.nqueens, "complete", path, "--certificate", cert, "--proof", "lrat", "--proof-limit", a.proof_limit,
                         "--proof-parts", "1"] + common, ok=(3,))
        doc = json.load(open(cert))
        proof = doc["proof"]
        if "file" not in proof:
            print(f"| {name} | {search:.3f} | no proof: {proof['missing']} |")
            continue
        lrat = cert[:-5] + ".lrat"
        size = os.path.getsize(lrat) / 1e6
        checker = [a.lrat_check] if a.lrat_check else [sys.executable, os.path.join(HERE, "check_lrat.py")]
        check, report = timed(checker + [cert[:-5] + ".cnf", lrat], ok=(0, 1))
        if not re.search(r"^[cs] VERIFIED$", report, re.M):
            sys.exit(f"{name}: LRAT proof NOT VERIFIED: {report[-500:]}")
        row = (f"| {name} | {search:.3f} | {proof['lemmas']:,} | {size:.1f} | {wall - search:.2f} | "
               f"{check:.2f} | {check / search:.0f}x |")
        if a.lrat_trim:
            trim, report = timed([a.lrat_trim, "-S", "--no-trim", cert[:-5] + ".cnf", lrat], ok=(20,))
            if "s VERIFIED" not in report.splitlines():
                sys.exit(f"{name}: lrat-trim did not verify the LRAT proof")
            row += f" {trim:.2f} | {trim / search:.0f}x |"
        os.remove(lrat)
        if a.lrat_trim:
            timed([a.nqueens, "complete", path, "--certificate", cert, "--proof", "lrat-binary", "--proof-limit", a.proof_limit,
                   "--proof-parts", "1"] + common, ok=(3,))
            bsize = os.path.getsize(lrat) / 1e6
            trim, report = timed([a.lrat_trim, "-S", "--no-trim", cert[:-5] + ".cnf", lrat], ok=(20,))
            if "s VERIFIED" not in report.splitlines():
                sys.exit(f"{name}: lrat-trim did not verify the binary LRAT proof")
            row += f" {bsize:.1f} | {trim:.2f} | {trim / search:.1f}x |"
            os.remove(lrat)
        if a.rate:
            timed([a.nqueens, "complete", path, "--certificate", cert, "--proof", "drat", "--proof-limit", a.proof_limit,
                   "--proof-parts", "1"] + common, ok=(3,))
            drat = cert[:-5] + ".drat"
            dsize = os.path.getsize(drat) / 1e6
            rcheck, report = timed([a.rate, cert[:-5] + ".cnf", drat], ok=(0, 1))
            if "s VERIFIED" not in report.splitlines():
                sys.exit(f"{name}: DRAT proof NOT VERIFIED")
            row += f" {dsize:.1f} | {rcheck:.2f} | {rcheck / search:.0f}x |"
            os.remove(drat)
        print(row, flush=True)


def binary_only(a, instances, common, tmp):
    split = a.parts is not None
    whole = not (split and a.no_whole)
    head, rule = "| instance | search s |", "|---|---:|"
    if whole:
        head += " clauses | binary MB | write s | lrat-trim s | x search |"
        rule += "---:|---:|---:|---:|---:|"
    if split:
        head += (f" parts | clauses | binary MB | write s | checked, {a.threads} at once s |"
                 " x search | checkers' own s |")
        rule += "---:|---:|---:|---:|---:|---:|---:|"
    print(head)
    print(rule)
    ratios = {"whole": [], "split": []}
    cert = os.path.join(tmp, "c.json")
    for name, path in instances:
        _, out = timed([a.nqueens, "complete", path, "--json"] + common, ok=(3,))
        search = json.loads(out)["stats"]["exact"]["seconds"]
        row = f"| {name} | {search:.3f} |"
        if whole:
            wall, _ = timed([a.nqueens, "complete", path, "--certificate", cert, "--proof", "lrat-binary",
                             "--proof-limit", a.proof_limit, "--proof-parts", "1"] + common, ok=(3,))
            proof = json.load(open(cert))["proof"]
            if "file" not in proof:
                print(f"{row} no proof: {proof['missing']} |", flush=True)
                continue
            lrat = cert[:-5] + ".lrat"
            size = os.path.getsize(lrat) / 1e6
            trim, report = timed([a.lrat_trim, "-S", "--no-trim", cert[:-5] + ".cnf", lrat], ok=(20,))
            if "s VERIFIED" not in report.splitlines():
                sys.exit(f"{name}: lrat-trim did not verify the binary LRAT proof")
            os.remove(lrat)
            ratios["whole"].append(trim / search)
            row += (f" {proof['lemmas']:,} | {size:.1f} | {wall - search:.2f} | "
                    f"{trim:.2f} | {trim / search:.1f}x |")
        if split:
            wall, _ = timed([a.nqueens, "complete", path, "--certificate", cert, "--proof", "lrat-binary",
                             "--proof-limit", a.proof_limit, "--proof-parts", a.parts] + common, ok=(3,))
            proof = json.load(open(cert))["proof"]
            if "file" not in proof:
                print(f"{row} no proof: {proof['missing']} |", flush=True)
                continue
            files = [proof["file"]] + [p["file"] for p in proof.get("parts") or []]
            size = sum(os.path.getsize(f) for f in files) / 1e6
            env = dict(os.environ, LRAT_CHECK=f"{a.lrat_trim} -S --no-trim")
            check, report = timed([sys.executable, os.path.join(HERE, "check_pieces.py"), cert,
                                   "--jobs", str(a.threads)], ok=(0, 1), env=env)
            if "s VERIFIED" not in report.splitlines():
                sys.exit(f"{name}: the split proof is NOT VERIFIED: {report[-500:]}")
            own = float(re.search(r"checkers' own ([0-9.]+) s", report).group(1))
            for f in files:
                os.remove(f)
            ratios["split"].append(check / search)
            row += (f" {len(files) - 1 or 'whole'} | {proof['lemmas']:,} | {size:.1f} | {wall - search:.2f} | "
                    f"{check:.2f} | {check / search:.1f}x | {own:.2f} |")
        print(row, flush=True)
    for kind, r in ratios.items():
        if r:
            print(f"\n{kind}: {len(r)} proofs VERIFIED; x search: median {sorted(r)[len(r) // 2]:.1f}, "
                  f"max {max(r):.1f}")


if __name__ == "__main__":
    main()
