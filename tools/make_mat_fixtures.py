#!/usr/bin/env python3
"""Makes the MAT fixtures under tests/data/mat with real writers (scipy.io.savemat; Octave
when installed) plus hand-built files for what those writers never produce (big-endian files,
broken files). Each good fixture NAME.mat comes with NAME.expected.txt, the rows it must
read as. Run from anywhere: python3 tools/make_mat_fixtures.py (needs numpy and scipy).
"""
import os, shutil, struct, subprocess, zlib
import numpy as np
import scipy.io

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OUT = os.path.join(ROOT, "tests", "data", "mat")
K47 = np.loadtxt(os.path.join(ROOT, "tests", "data", "grigoryan-n100-k47.txt"), dtype=np.int64)


def good(name, rows, write):
    path = os.path.join(OUT, name + ".mat")
    write(path)
    np.savetxt(os.path.join(OUT, name + ".expected.txt"), rows, fmt="%d")


def save(path, compress, **variables):
    scipy.io.savemat(path, variables, do_compression=compress)


def header(endian=b"IM"):
    text = b"MATLAB 5.0 MAT-file, hand-built test fixture".ljust(116, b" ")
    version = b"\x00\x01" if endian == b"IM" else b"\x01\x00"
    return text + b"\x00" * 8 + version + endian


def element(fmt, ty, data):
    pad = (-len(data)) % 8
    return struct.pack(fmt + "II", ty, len(data)) + data + b"\x00" * pad


def matrix(fmt, cls, dims, name, data_type, data):
    body = element(fmt, 6, struct.pack(fmt + "II", cls, 0))
    body += element(fmt, 5, struct.pack(fmt + "%di" % len(dims), *dims))
    body += element(fmt, 1, name)
    body += element(fmt, data_type, data)
    return struct.pack(fmt + "II", 14, len(body)) + body


def main():
    os.makedirs(OUT, exist_ok=True)
    small = K47[:20].copy()
    small[small > 20] = 0  # keep a valid-looking 20-row vector
    # scipy: every numeric class, row and column vectors, compressed and not.
    good("scipy-double-row-v5", K47, lambda p: save(p, False, Q=K47.astype(np.float64).reshape(1, -1)))
    good("scipy-double-row-v7", K47, lambda p: save(p, True, Q=K47.astype(np.float64).reshape(1, -1)))
    good("scipy-uint32-col-v7", K47, lambda p: save(p, True, Q=K47.astype(np.uint32).reshape(-1, 1)))
    for dt in ["single", "int8", "uint8", "int16", "uint16", "int32", "int64", "uint64"]:
        npdt = {"single": np.float32}.get(dt, getattr(np, dt, None))
        good(f"scipy-{dt}-v5", small, lambda p, npdt=npdt: save(p, False, Q=small.astype(npdt).reshape(1, -1)))
    good("scipy-named-var", K47, lambda p: save(p, True, sol=K47.astype(np.uint32), note=np.array(["hi"])))
    # Big-endian, by hand (scipy writes native order only).
    good("bigendian-double", small, lambda p: open(p, "wb").write(
        header(b"MI") + matrix(">", 6, [1, len(small)], b"Q", 9, struct.pack(">%dd" % len(small), *small))))
    # Bad files.
    bad = {}
    full = open(os.path.join(OUT, "scipy-double-row-v5.mat"), "rb").read()
    bad["truncated-header"] = full[:100]
    lying = bytearray(full)
    struct.pack_into("<I", lying, 132, 10_000_000)
    bad["lying-size"] = bytes(lying)
    comp = bytearray(open(os.path.join(OUT, "scipy-double-row-v7.mat"), "rb").read())
    for i in range(150, 170):
        comp[i] ^= 0x5A
    bad["corrupt-zlib"] = bytes(comp)
    path = os.path.join(OUT, "bad-char.mat")
    save(path, False, Q=np.array(["abc"]))
    bad["char"] = open(path, "rb").read()
    save(path, False, Q=np.ones((3, 4)))
    bad["matrix-2d"] = open(path, "rb").read()
    save(path, False, Q=np.array([1 + 2j, 0]))
    bad["complex"] = open(path, "rb").read()
    save(path, False, Q=np.array([1.0, -2.0, 0.0]))
    bad["negative"] = open(path, "rb").read()
    save(path, False, Q=np.array([1.0, 2.5, 0.0]))
    bad["fraction"] = open(path, "rb").read()
    save(path, False, Q=np.array([1.0, np.nan, 0.0]))
    bad["nan"] = open(path, "rb").read()
    save(path, False, Q=np.array([1.0, 9.0, 0.0]))
    bad["too-large"] = open(path, "rb").read()
    save(path, False, A=np.array([1.0, 0.0]), B=np.array([0.0, 1.0]))
    bad["two-vectors"] = open(path, "rb").read()
    os.remove(path)
    for name, data in bad.items():
        open(os.path.join(OUT, f"bad-{name}.mat"), "wb").write(data)
    # Octave, when present, as a second real writer.
    if shutil.which("octave"):
        script = (f"Q = uint32([{' '.join(map(str, K47))}]); save('-v7', '{OUT}/octave-v7.mat', 'Q'); "
                  f"save('-v6', '{OUT}/octave-v6.mat', 'Q');")
        subprocess.run(["octave", "--no-gui", "--eval", script], check=True)
        for name in ("octave-v7", "octave-v6"):
            np.savetxt(os.path.join(OUT, name + ".expected.txt"), K47, fmt="%d")


if __name__ == "__main__":
    main()
