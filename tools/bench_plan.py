#!/usr/bin/env python3
"""Checks a count plan against the shards it plans: `count N --plan S`, then every shard
counted one after another (`--plan-file plan.json --shard I/S`, each its own process, as
on a cluster), and the projected shard time against the measured one (mean and slowest),
and the plan's Slurm --time against the slowest shard. The shards' sum is checked against
OEIS A000170.

Usage: tools/bench_plan.py --n 19 --shards 32 [--threads 1] [--sample 10] [--engine
constellations] [--bin target/release/nqueens]
Prints one Markdown row per run.
"""

import argparse
import json
import os
import subprocess
import sys
import tempfile

A000170 = {16: 14772512, 17: 95815104, 18: 666090624, 19: 4968057848, 20: 39029188884,
           21: 314666222712, 22: 2691008701644}


def slurm_seconds(t: str) -> int:
    days, rest = t.split("-")
    h, m, s = (int(x) for x in rest.split(":"))
    return ((int(days) * 24 + h) * 60 + m) * 60 + s


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--n", type=int, required=True)
    ap.add_argument("--shards", type=int, required=True)
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--sample", type=float, default=10.0)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--engine", default=None)
    ap.add_argument("--bin", default="target/release/nqueens")
    a = ap.parse_args()
    env = dict(os.environ)
    if a.engine:
        env["NQUEENS_COUNT_ENGINE"] = a.engine
    with tempfile.TemporaryDirectory() as d:
        plan_path = os.path.join(d, "plan.json")
        subprocess.run(
            [a.bin, "--threads", str(a.threads), "count", str(a.n), "--plan", str(a.shards),
             "--estimate-seconds", str(a.sample), "--seed", str(a.seed), "-o", plan_path],
            check=True, env=env, stdout=subprocess.DEVNULL)
        plan = json.load(open(plan_path))
        projected = [s["wall_seconds"] for s in plan["shards"]]
        actual, total = [], 0
        for i in range(a.shards):
            out = subprocess.run(
                [a.bin, "count", "--plan-file", plan_path, "--shard", f"{i}/{a.shards}",
                 "--threads", str(a.threads), "--json", "-q"],
                check=True, env=env, capture_output=True, text=True).stdout
            r = json.loads(out)
            actual.append(r["seconds"])
            total += int(r["placements"])
    if a.n in A000170 and total != A000170[a.n]:
        print(f"n = {a.n}: the shards add up to {total}, not {A000170[a.n]}", file=sys.stderr)
        return 1
    mean_p, mean_a = sum(projected) / len(projected), sum(actual) / len(actual)
    items = plan["items"] // a.shards
    print(f"| {a.n} | {plan['engine']} | {a.shards} | {items} | {a.threads} | "
          f"{plan['estimate']['sampled']} | {mean_p:.2f} | {mean_a:.2f} | "
          f"{100 * (mean_p / mean_a - 1):+.0f} % | {max(actual):.2f} | "
          f"{100 * (max(actual) / mean_a - 1):+.0f} % | "
          f"{slurm_seconds(plan['slurm']['time'])} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
