#!/usr/bin/env python3
"""Size and speed of `.mat` outputs against the raw data and Octave's own `save -v7`
(issue 15, point 4).

For each case (a constructed or random solution of size n, made with `nqueens generate`),
writes it with `nqueens convert X.nqb X.mat` (MAT v7, compressed) and `--to mat-v6`
(uncompressed), then has Octave load our v7 file and save the same vector with its own
`save -v7`, once as uint32 (the class we write) and once as double (what a MATLAB user's Q
usually is). Prints a Markdown table: bytes, ratio to the raw data (4 n bytes), write
seconds, and Octave's load seconds of our file.

Usage: tools/bench_mat_size.py [--dir DIR] [--cases c1e6,r1e6,r1e7,r1e8] [--no-octave]
"""
import argparse, os, shutil, subprocess, sys, time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BIN = os.path.join(ROOT, "target", "release", "nqueens")


def timed(cmd):
    t = time.perf_counter()
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return time.perf_counter() - t


def size(n_text):
    return int(float(n_text))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--dir", default="mat-size-bench")
    ap.add_argument("--cases", default="c1e6,r1e6,r1e7,r1e8")
    ap.add_argument("--no-octave", action="store_true")
    a = ap.parse_args()
    os.makedirs(a.dir, exist_ok=True)
    octave = None if a.no_octave else shutil.which("octave")
    print("| case | raw bytes | ours v7 bytes (ratio) | write v7 s | ours v6 write s | Octave -v7 uint32 bytes | Octave -v7 double bytes | ours / Octave double | Octave load of ours s |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|")
    for case in a.cases.split(","):
        kind, n = case[0], size(case[1:])
        nqb = os.path.join(a.dir, case + ".nqb")
        if not os.path.exists(nqb):
            extra = ["--random", "--seed", "1"] if kind == "r" else []
            subprocess.run([BIN, "generate", "solution", "--n", str(n), *extra, "-o", nqb, "-q"],
                           check=True, stderr=subprocess.DEVNULL)
        v7, v6 = os.path.join(a.dir, case + ".mat"), os.path.join(a.dir, case + "-v6.mat")
        for f in (v7, v6):
            if os.path.exists(f):
                os.remove(f)
        t7 = timed([BIN, "convert", "-q", nqb, v7])
        t6 = timed([BIN, "convert", "-q", nqb, v6, "--to", "mat-v6"])
        raw, ours = 4 * n, os.path.getsize(v7)
        row = [case, f"{raw:,}", f"{ours:,} ({ours / raw:.3f})", f"{t7:.2f}", f"{t6:.2f}"]
        if octave:
            u32, dbl = os.path.join(a.dir, case + "-oct-u32.mat"), os.path.join(a.dir, case + "-oct-dbl.mat")
            script = (f"tic; s = load('{v7}'); t = toc; Q = s.Q; save('-v7', '{u32}', 'Q'); "
                      f"Q = double(Q); save('-v7', '{dbl}', 'Q'); printf('%f\\n', t);")
            out = subprocess.run([octave, "--no-gui", "--quiet", "--eval", script], check=True,
                                 capture_output=True, text=True).stdout
            load_s = float(out.strip().splitlines()[-1])
            ou, od = os.path.getsize(u32), os.path.getsize(dbl)
            row += [f"{ou:,}", f"{od:,}", f"{ours / od:.2f}", f"{load_s:.2f}"]
        else:
            row += ["-", "-", "-", "-"]
        print("| " + " | ".join(row) + " |", flush=True)


if __name__ == "__main__":
    main()
