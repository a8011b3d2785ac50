#!/usr/bin/env python3
"""Checks that MATLAB-side readers load what `nqueens convert` writes and get the same array:
scipy.io.loadmat (v6/v7) and h5py (v7.3, as MATLAB lays it out) always, Octave when
installed. Not run by `cargo test` (it needs scipy and h5py); run it after changing
src/format/mat5.rs or mat73.rs:  python3 tools/check_mat_clients.py
"""
import os, shutil, subprocess, sys, tempfile
import h5py
import numpy as np
import scipy.io

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BIN = os.path.join(ROOT, "target", "release", "nqueens")


def main():
    subprocess.run(["cargo", "build", "--release", "--quiet"], cwd=ROOT, check=True)
    failures = 0
    with tempfile.TemporaryDirectory() as tmp:
        src = os.path.join(tmp, "sol.nqb")
        subprocess.run([BIN, "generate", "solution", "--n", "100003", "-o", src], check=True)
        want = np.fromfile(src, dtype="<u4", offset=64)
        for to in ("mat", "mat-v6", "mat-v73"):
            out = os.path.join(tmp, f"{to}.mat")
            subprocess.run([BIN, "convert", src, out, "--to", to], check=True)
            if to == "mat-v73":
                with h5py.File(out, "r") as f:
                    d = f["Q"]
                    cls = d.attrs["MATLAB_class"]
                    got = d[...].T  # HDF5 holds MATLAB's dimensions reversed
                head = open(out, "rb").read(128)
                ok = (cls == b"uint32" and head.startswith(b"MATLAB 7.3 MAT-file")
                      and head[124:128] == b"\x00\x02IM")
                reader = "h5py"
            else:
                got = scipy.io.loadmat(out)["Q"]
                ok, reader = True, "scipy"
            ok = ok and got.dtype == np.uint32 and got.shape == (1, len(want)) and (got.ravel() == want).all()
            print(f"{reader:6s} {to:7s} {'ok' if ok else 'MISMATCH'} {got.dtype} {got.shape}")
            failures += not ok
            if shutil.which("octave"):
                txt = os.path.join(tmp, f"{to}.txt")
                subprocess.run(["octave", "--no-gui", "--eval",
                                f"load('{out}'); assert(isa(Q,'uint32')); dlmwrite('{txt}', Q(:), '\\n')"], check=True)
                ok = (np.loadtxt(txt, dtype=np.uint64) == want).all()
                print(f"octave {to:7s} {'ok' if ok else 'MISMATCH'}")
                failures += not ok
            else:
                print("octave not installed: skipped")
        # A shaped answer: --mat-class/--mat-name/--mat-shape, as each client loads it.
        for to in ("mat", "mat-v6", "mat-v73"):
            out = os.path.join(tmp, f"shaped-{to}.mat")
            subprocess.run([BIN, "convert", src, out, "--to", to, "--mat-class", "double",
                            "--mat-name", "Sol", "--mat-shape", "column", "-q"], check=True)
            if to == "mat-v73":
                with h5py.File(out, "r") as f:
                    d = f["Sol"]
                    ok = d.attrs["MATLAB_class"] == b"double" and d.dtype == np.float64
                    got = d[...].T
            else:
                got = scipy.io.loadmat(out)["Sol"]
                ok = got.dtype == np.float64
            ok = ok and got.shape == (len(want), 1) and (got.ravel() == want).all()
            print(f"shaped {to:7s} {'ok' if ok else 'MISMATCH'} {got.dtype} {got.shape}")
            failures += not ok
            if shutil.which("octave"):
                r = subprocess.run(["octave", "--no-gui", "--eval",
                                    f"load('{out}'); assert(isa(Sol,'double')); assert(isequal(size(Sol), [{len(want)} 1])); disp('ok')"],
                                   capture_output=True, text=True)
                ok = r.returncode == 0 and "ok" in r.stdout
                print(f"octave shaped {to:7s} {'ok' if ok else 'MISMATCH ' + r.stderr.strip()}")
                failures += not ok
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
