#!/usr/bin/env python3
"""Benchmarks of `nqueens count` (issue: count). Not a test: prints Markdown tables for
BENCHMARKS.md and writes them to bench-out/count.md.

  python3 tools/bench_count.py [--awesome-max N] [--skip-basic]

Sections: queens n = 16..18 on all cores against OEIS A000170; Wirth's check-function
backtracker (--algorithm basic) against the fast engine on one thread for n = 10..16 (the
seed's Table 4 ratios); the seed's tables (Kiss) for queens, rooks and bishops in all kinds,
with awesome values for odd n corrected; awesome queens as far as --awesome-max.
"""
import argparse, json, os, platform, subprocess, sys, time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BIN = os.path.join(ROOT, "target", "release", "nqueens")
A000170 = {16: 14772512, 17: 95815104, 18: 666090624}
# Kiss, NqProblemExtended: "ordered" tables (regular, super, awesome).
KISS = {
    "queen": {n: v for n, v in zip(range(1, 16), [
        (1, 1, 1), (0, 0, 0), (0, 0, 0), (2, 0, 0), (10, 0, 0), (4, 0, 0), (40, 0, 0), (92, 0, 0),
        (352, 0, 0), (724, 4, 4), (2680, 44, 33), (14200, 156, 6), (73712, 1876, 59),
        (365596, 5180, 8), (2279184, 32516, 12)])},
    "rook": {n: v for n, v in zip(range(1, 13), [
        (1, 1, 1), (2, 2, 2), (6, 2, 1), (24, 8, 8), (120, 20, 10), (720, 94, 22),
        (5040, 438, 38), (40320, 2766, 276), (362880, 19480, 475), (3628800, 163058, 2304),
        (39916800, 1546726, 4884), (479001600, 16598282, 24528)])},
    "bishop": {n: v for n, v in zip(range(1, 10), [
        (1, 1, 1), (4, 4, 4), (26, 6, 6), (260, 86, 86), (3368, 854, 293), (53744, 9556, 2824),
        (1022320, 146168, 12098), (22522960, 2660326, 234450), (565532992, 56083228, 1465563)])},
}
KISS_AWESOME_QUEENS = {19: 361, 20: 516, 21: 689, 22: 2092, 23: 5639, 24: 22794, 25: 68044,
                       26: 275732, 27: 767820, 28: 3698242}
KINDS = ["regular", "super", "awesome"]


def count(*args):
    out = subprocess.run([BIN, "count", *map(str, args), "--json", "--quiet"],
                         check=True, capture_output=True, text=True).stdout
    return [json.loads(line) for line in out.splitlines()]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--awesome-max", type=int, default=24)
    ap.add_argument("--skip-basic", action="store_true")
    a = ap.parse_args()
    subprocess.run(["cargo", "build", "--release", "--quiet"], cwd=ROOT, check=True)
    lines = [f"Machine: {platform.machine()}, {os.cpu_count()} cores; "
             f"date {time.strftime('%Y-%m-%d')}", ""]

    lines += ["### Queens on all cores", "", "| n | placements | OEIS A000170 | seconds |",
              "|---|---|---|---|"]
    for n in (16, 17, 18):
        v = count(n)[0]
        ok = "match" if int(v["placements"]) == A000170[n] else "MISMATCH"
        lines.append(f"| {n} | {v['placements']} | {ok} | {v['seconds']:.2f} |")
        print(lines[-1], flush=True)

    if not a.skip_basic:
        lines += ["", "### Wirth's check function (`--algorithm basic`) against the fast engine, one thread",
                  "", "| n | basic s | fast s | basic / fast |", "|---|---|---|---|"]
        for n in range(10, 17):
            b = count(n, "--algorithm", "basic", "--threads", 1)[0]
            f = count(n, "--threads", 1)[0]
            assert b["placements"] == f["placements"]
            ratio = b["seconds"] / max(f["seconds"], 1e-6)
            lines.append(f"| {n} | {b['seconds']:.3f} | {f['seconds']:.4f} | {ratio:.0f} |")
            print(lines[-1], flush=True)

    lines += ["", "### The seed's tables (Kiss), all kinds", "",
              "| piece | n | regular | super | awesome | differs from Kiss |", "|---|---|---|---|---|---|"]
    started = time.time()
    for piece, table in KISS.items():
        for n, kiss in table.items():
            ours = tuple(int(count(n, "--piece", piece, "--kind", k)[0]["placements"]) for k in KINDS)
            diff = [f"{k} (Kiss {kv})" for k, o, kv in zip(KINDS, ours, kiss) if o != kv]
            assert all(d.startswith("awesome") for d in diff) and (not diff or n % 2 == 1), (piece, n, diff)
            lines.append(f"| {piece} | {n} | {ours[0]} | {ours[1]} | {ours[2]} | {', '.join(diff)} |")
    total = time.time() - started
    lines += ["", f"All {sum(len(t) for t in KISS.values()) * 3} counts in {total:.1f} s (wall, "
              "including process start-up)."]
    print(lines[-1], flush=True)

    lines += ["", "### Awesome queens", "", "| n | placements | distinct | Kiss | seconds |",
              "|---|---|---|---|---|"]
    for n in range(19, a.awesome_max + 1):
        v = count(n, "--kind", "awesome", "--distinct")[0]
        lines.append(f"| {n} | {v['placements']} | {v['distinct']} | {KISS_AWESOME_QUEENS.get(n, '')} | "
                     f"{v['seconds']:.1f} |")
        print(lines[-1], flush=True)

    os.makedirs(os.path.join(ROOT, "bench-out"), exist_ok=True)
    with open(os.path.join(ROOT, "bench-out", "count.md"), "w") as f:
        f.write("\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    sys.exit(main())
