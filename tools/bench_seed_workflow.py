#!/usr/bin/env python3
"""The seed paper's headline workflow at n = 1e9 (issue 15, point 8): a MATLAB user's v7.3
file `Q` (uint32 1xN, written with h5py in MATLAB's layout: 512-byte user block with the MAT
header, contiguous dataset, MATLAB_class attribute) holding a random solution with 518 rows
cleared, completed with one command into a v7.3 file, which h5py then checks. Then a composition
with as many free rows, one of which has every free cell attacked, must be answered
INFEASIBLE with that row as the certificate.

Needs numpy and h5py. Usage:
  tools/bench_seed_workflow.py --source r1e9.nqb --dir DIR [--n 1e9] [--free 518]
The source is a raw NQB solution (`nqueens generate solution --random --n 1e9 --seed 1`);
without --source one is generated in DIR.
Prints wall time and peak RSS (whole process, from getrusage; and the engine's own peak
anonymous memory from --json), and file sizes.
"""
import argparse, json, os, subprocess, sys, tempfile, time
import numpy as np
import h5py

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BIN = os.environ.get("NQUEENS_BIN", os.path.join(ROOT, "target", "release", "nqueens"))
CHUNK = 1 << 26


def run(args):
    t = time.perf_counter()
    with tempfile.TemporaryFile("w+") as out, tempfile.TemporaryFile("w+") as err:
        p = subprocess.Popen([BIN] + args, stdout=out, stderr=err)
        _, status, usage = os.wait4(p.pid, 0)
        wall = time.perf_counter() - t
        out.seek(0), err.seek(0)
        return os.waitstatus_to_exitcode(status), wall, usage.ru_maxrss / 1024, out.read(), err.read()


def write_v73(path, rows, n):
    """`rows(first, count)` gives the values; MATLAB's 1xN is HDF5 (N, 1)."""
    with h5py.File(path, "w", userblock_size=512, libver="earliest") as f:
        d = f.create_dataset("Q", shape=(n, 1), dtype=np.uint32)
        d.attrs["MATLAB_class"] = np.bytes_("uint32")
        for first in range(0, n, CHUNK):
            count = min(CHUNK, n - first)
            d[first:first + count, 0] = rows(first, count)
    text = b"MATLAB 7.3 MAT-file, Platform: GLNXA64, Created on: Mon Nov 23 00:00:00 2026 HDF5 schema 1.00 ."
    with open(path, "r+b") as fh:
        fh.write(text.ljust(116, b" ") + b"\x00" * 8 + b"\x00\x02" + b"IM")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--source")
    ap.add_argument("--dir", required=True)
    ap.add_argument("--n", default="1e9")
    ap.add_argument("--free", type=int, default=518)
    a = ap.parse_args()
    n = int(float(a.n))
    os.makedirs(a.dir, exist_ok=True)
    src = a.source or os.path.join(a.dir, "source.nqb")
    if not os.path.exists(src):
        code, wall, *_ = run(["generate", "solution", "--random", "--n", str(n), "--seed", "1", "-o", src, "-q"])
        print(f"generated {src} in {wall:.1f} s")
    sol = np.memmap(src, dtype="<u4", mode="r", offset=64)
    assert len(sol) == n
    rng = np.random.default_rng(7)
    cleared = np.sort(rng.choice(n, size=a.free, replace=False))
    qmat = os.path.join(a.dir, "Q.mat")

    def with_cleared(first, count):
        block = np.array(sol[first:first + count])
        inside = cleared[(cleared >= first) & (cleared < first + count)]
        block[inside - first] = 0
        return block

    t = time.perf_counter()
    write_v73(qmat, with_cleared, n)
    print(f"Q.mat: {os.path.getsize(qmat):,} bytes, {a.free} rows cleared, written by h5py in {time.perf_counter() - t:.1f} s")

    out = os.path.join(a.dir, "Q_solved.mat")
    if os.path.exists(out):
        os.remove(out)
    subprocess.run(["sync"])
    code, wall, rss, stdout, err = run(["complete", qmat, "-o", out, "--json", "--seed", "1"])
    rec = json.loads(stdout)
    peak_anon = (rec["stats"].get("peak_anonymous_bytes") or 0) / 2**20
    print(f"complete: exit {code}, answer {rec['answer']}, wall {wall:.1f} s, max RSS {rss:.0f} MiB "
          f"(file pages included), peak anonymous {peak_anon:.0f} MiB; phases: input "
          f"{rec['stats']['input']['seconds']:.1f} s, output {rec['seconds_output']:.1f} s")
    with h5py.File(out, "r") as f:
        q = f["Q"]
        assert q.shape == (n, 1) and q.dtype == np.uint32, (q.shape, q.dtype)
        assert f["Q"].attrs["MATLAB_class"] in (b"uint32", "uint32")
        for first in range(0, n, CHUNK):
            count = min(CHUNK, n - first)
            got = q[first:first + count, 0]
            kept = with_cleared(first, count)
            mask = kept != 0
            assert (got[mask] == kept[mask]).all(), f"a given queen moved near row {first}"
            assert (got != 0).all(), f"an empty row near row {first}"
    head = open(out, "rb").read(116).decode()
    print(f"Q_solved.mat: {os.path.getsize(out):,} bytes, read back by h5py: every given queen kept, "
          f"no empty row; header: {head.strip()}")
    code, wall_v, rss_v, stdout, _ = run(["verify", "--require-complete", "--base", qmat, out])
    print(f"verify --base: exit {code} ({stdout.strip()}), {wall_v:.1f} s")
    os.remove(out)

    # Infeasible: a composition with the same number of free rows, one of which (r) has
    # no free cell. Rows r, s and T (|T| = free - 1) are cleared; s gets r's column back
    # (on a cell no remaining queen attacks), so the free columns are s's and T's; every
    # cell of row r in them is attacked by a queen that stays (its row is kept out of T).
    bad = os.path.join(a.dir, "Q_infeasible.mat")
    q = lambda i: int(sol[i])  # 0-based row i, 1-based column
    r = int(rng.integers(n))
    s_cands = [int(x) for x in rng.choice(n, size=400, replace=False) if x != r]
    t_cands = [int(x) for x in rng.choice(n, size=8 * a.free, replace=False) if x != r]
    # Diagonals (1-based rows): D1 = col - row + n, D2 = col + row.
    d1 = lambda row, col: col - (row + 1) + n
    d2 = lambda row, col: col + (row + 1)
    want1 = {d1(r, q(s)) for s in s_cands} | {d1(s, q(r)) for s in s_cands} | {d1(r, q(t)) for t in t_cands}
    want2 = {d2(r, q(s)) for s in s_cands} | {d2(s, q(r)) for s in s_cands} | {d2(r, q(t)) for t in t_cands}
    w1, w2 = np.array(sorted(want1), dtype=np.int64), np.array(sorted(want2), dtype=np.int64)
    owner1, owner2 = {}, {}
    t0 = time.perf_counter()
    for first in range(0, n, CHUNK):
        cols = np.asarray(sol[first:first + CHUNK], dtype=np.int64)
        rows = np.arange(first + 1, first + 1 + len(cols), dtype=np.int64)
        for diag, want, owner in ((cols - rows + n, w1, owner1), (cols + rows, w2, owner2)):
            at = np.minimum(np.searchsorted(want, diag), len(want) - 1)
            hit = want[at] == diag
            for k in np.nonzero(hit)[0]:
                owner[int(diag[k])] = first + int(k)
    attacker = lambda row, col: owner1.get(d1(row, col), owner2.get(d2(row, col)))
    s = next(x for x in s_cands
             if owner1.get(d1(x, q(r)), r) == r and owner2.get(d2(x, q(r)), r) == r
             and attacker(r, q(x)) not in (None, r, x))
    protected, chosen = {r, s, attacker(r, q(s))}, []
    for t in t_cands:
        who = attacker(r, q(t))
        if len(chosen) == a.free - 1:
            break
        if t in protected or who is None or who in chosen or who in (r, s):
            continue
        chosen.append(t)
        protected |= {t, who}
    assert len(chosen) == a.free - 1, "not enough candidates"
    cleared_bad = np.sort(np.array([r, s] + chosen))

    def infeasible(first, count):
        block = np.array(sol[first:first + count])
        inside = cleared_bad[(cleared_bad >= first) & (cleared_bad < first + count)]
        block[inside - first] = 0
        if first <= s < first + count:
            block[s - first] = q(r)
        return block

    write_v73(bad, infeasible, n)
    print(f"Q_infeasible.mat: {a.free} free rows, row {r + 1} without a free cell "
          f"(made in {time.perf_counter() - t0:.1f} s)")
    subprocess.run(["sync"])
    code, wall, rss, stdout, err = run(["complete", bad, "--json", "--seed", "1"])
    rec = json.loads(stdout) if stdout.strip() else {}
    print(f"infeasible variant: exit {code}, answer {rec.get('answer')}, "
          f"{rec.get('explanation', err.strip())[:140]}, wall {wall:.1f} s, max RSS {rss:.0f} MiB, "
          f"peak anonymous {(rec.get('stats', {}).get('peak_anonymous_bytes') or 0) / 2**20:.0f} MiB")
    os.remove(bad)


if __name__ == "__main__":
    main()
