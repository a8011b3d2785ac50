#!/usr/bin/env python3
"""Makes the CSPLib 079 fixtures under tests/data/csplib.

Excluded Diagonals instances near the hard region (few solutions or none), each with an
`.expected` file holding its solution count from a plain bitmask backtracker written here
independently of nqueens; plus the 1850 Nauck completion instance and broken files for the
bad-input tests. Deterministic: run it again and the files come out the same.

    python3 tools/make_csplib_fixtures.py tests/data/csplib
"""
import json
import random
import sys
from pathlib import Path


def count(m, excluded):
    """Solutions of an Excluded Diagonals instance: queens row by row, bitmasks of columns
    and of the two diagonal families (sum r+c, difference r-c+m-1), excluded ones preset."""
    sums = 0
    diffs = 0
    for d, t in excluded:
        if t == 1:
            sums |= 1 << d
        else:
            diffs |= 1 << d
    full = (1 << m) - 1

    def go(r, cols, s, df):
        if r == m:
            return 1
        total = 0
        free = full & ~cols
        while free:
            bit = free & -free
            free ^= bit
            c = bit.bit_length() - 1
            if s >> (r + c) & 1 or df >> (r - c + m - 1) & 1:
                continue
            total += go(r + 1, cols | bit, s | 1 << (r + c), df | 1 << (r - c + m - 1))
        return total

    return go(0, 0, sums, diffs)


def instance(rng, m, d):
    diags = [[x, t] for x in range(2 * m - 1) for t in (0, 1)]
    rng.shuffle(diags)
    return diags, d


def main():
    out = Path(sys.argv[1] if len(sys.argv) > 1 else "tests/data/csplib")
    out.mkdir(parents=True, exist_ok=True)
    rng = random.Random(79)
    wanted = {6: 2, 8: 2, 10: 2, 12: 2, 14: 3}
    for m, many in wanted.items():
        made = {"solvable": 0, "infeasible": 0}
        while min(made.values()) < many:
            d = rng.randint(m // 2, 2 * m)
            diags, d = instance(rng, m, d)
            c = count(m, diags[:d])
            kind = "solvable" if c else "infeasible"
            # Keep instances near the edge: few solutions, or none with few diagonals.
            if made[kind] >= many or (c > 8) or (c == 0 and d > m):
                continue
            made[kind] += 1
            name = f"ed-{m}-{kind}-{made[kind]}"
            # Alternate the two spellings seen in the wild.
            if made[kind] % 2:
                text = f"n = {m}\nnumdiags = {d}\ndiags = {json.dumps(diags)}\n"
            else:
                text = (f"language ESSENCE' 1.0\n$ excluded diagonals, m = {m}\n"
                        f"letting n be {m}\nletting numdiags be {d}\n"
                        f"letting diags be {json.dumps(diags)}\n")
            (out / f"{name}.txt").write_text(text)
            (out / f"{name}.expected").write_text(f"{c}\n")
    (out / "nauck-1850.param").write_text(
        "language ESSENCE' 1.0\n$ Nauck (1850): two queens given, place six more\n"
        "letting n = 8\nletting init = [[0,3],[5,1]]\n")
    (out / "bad-off-board.param").write_text("letting n = 8\nletting init = [[0,3],[8,1]]\n")
    (out / "bad-attacking.param").write_text("letting n = 8\nletting init = [[0,3],[5,1],[3,0]]\n")
    (out / "bad-same-row.param").write_text("letting n = 8\nletting init = [[2,3],[2,6]]\n")
    (out / "bad-unclosed.param").write_text("letting n = 8\nletting init = [[0,3],[5,1]\n")
    (out / "bad-diagonal.txt").write_text("n = 5\nnumdiags = 2\ndiags = [[3,1],[9,0]]\n")
    (out / "bad-numdiags.txt").write_text("n = 5\nnumdiags = 4\ndiags = [[3,1],[2,0]]\n")


if __name__ == "__main__":
    main()
