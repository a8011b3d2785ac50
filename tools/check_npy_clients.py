#!/usr/bin/env python3
"""Checks the NumPy recipes of README.md against the release binary (needs numpy):
our .npy output loads with np.load (whole and memory-mapped), a raw NQB file maps with
np.memmap at offset 64, NumPy's own np.save output is verified by nqueens, and the
subprocess example (complete, then read the answer's JSON) runs as written.

Usage: tools/check_npy_clients.py [--n 1000000]
"""
import argparse, json, os, subprocess, tempfile
import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BIN = os.path.join(ROOT, "target", "release", "nqueens")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--n", type=int, default=1_000_000)
    n = ap.parse_args().n
    with tempfile.TemporaryDirectory() as d:
        npy, nqb = os.path.join(d, "s.npy"), os.path.join(d, "s.nqb")
        subprocess.run([BIN, "generate", "solution", "--n", str(n), "--random", "--seed", "1",
                        "-o", npy, "-q"], check=True, stderr=subprocess.DEVNULL)
        subprocess.run([BIN, "convert", npy, nqb], check=True)
        q = np.load(npy)
        assert q.dtype == np.uint32 and q.shape == (n,), (q.dtype, q.shape)
        m = np.load(npy, mmap_mode="r")
        # README: a raw NQB file is a 64-byte header, then little-endian uint32 rows.
        mm = np.memmap(nqb, dtype="<u4", mode="r", offset=64)
        assert (m == q).all() and (mm == q).all()
        assert sorted(q[:1000].tolist()) == sorted(set(q[:1000].tolist())), "distinct columns"
        print(f"np.load, np.load(mmap_mode='r') and np.memmap(offset=64) agree on n = {n}")

        # NumPy's own file, a composition with rows cleared, completed by nqueens.
        board = q.astype(np.int64)
        board[np.random.default_rng(1).choice(n, size=n // 100, replace=False)] = 0
        own = os.path.join(d, "board.npy")
        np.save(own, board)
        # README's subprocess example.
        out = subprocess.run(
            [BIN, "complete", own, "-o", os.path.join(d, "solved.npy"), "--json",
             "--time-limit", "60"],
            capture_output=True, text=True, check=True)
        answer = json.loads(out.stdout)
        solved = np.load(os.path.join(d, "solved.npy"))
        kept = board != 0
        assert answer["answer"] == "solved" and (solved[kept] == board[kept]).all()
        print(f"np.save int64 board with {n // 100} rows cleared: {answer['answer']}, "
              f"seed {answer['seed']}, {answer['seconds']:.2f} s")


if __name__ == "__main__":
    main()
