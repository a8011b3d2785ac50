#!/usr/bin/env python3
"""`nqueens count N` side by side with Kluev's N-Queens-Count-Sol, the fastest public CPU
counter we know of. Not a test: prints a Markdown table for BENCHMARKS.md and writes it to
bench-out/count_peers.md.

  python3 tools/bench_count_peers.py [--sizes 16-20] [--threads 1,2] [--peer-src DIR]
                                     [--scratch DIR] [--skip-peer] [--kernels-max 19]
                                     [--peer-march native] [--peer-flags "..."] [--kernel K]

The peer is built in a scratch directory outside the project (never inside it): from
--peer-src (a checkout or a bare git directory of github.com/EvgenyKluev/N-Queens-Count-Sol),
or cloned from GitHub. Its board size and tuning are compile-time constants in
solcounter.h; the script sets them per n from the table in that file (sieveCuts,
matchMinSize, bmiIntrin, prefetch; prefetch on, which its author's table gives as fastest
for n <= 19 and which we use at 20 too) and builds with g++ -std=c++20 -O3 -march=native.

Ours runs once per thread count with the kernel it picks, and once per kernel this CPU
supports (NQUEENS_KERNEL, one thread) up to --kernels-max. Seconds are wall seconds of the
count as each program prints them (ours: the JSON's "seconds"; the peer: its "Elapsed
time"), both excluding process start.

To stand in for a CPU without AVX-512 on one that has it: `--kernel avx2` runs ours with the
AVX2 kernel at most, and `--peer-flags "-mno-avx512f"` builds the peer for the same CPU
without AVX-512 (same tuning, no AVX-512 instruction). It is a stand-in, not the other CPU:
the caches and the latencies stay this one's.
"""
import argparse, json, os, platform, re, shutil, subprocess, sys, tempfile, time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BIN = os.path.join(ROOT, "target", "release", "nqueens")
PEER_URL = "https://github.com/EvgenyKluev/N-Queens-Count-Sol"
A000170 = {12: 14200, 13: 73712, 14: 365596, 15: 2279184, 16: 14772512, 17: 95815104,
           18: 666090624, 19: 4968057848, 20: 39029188884, 21: 314666222712,
           22: 2691008701644}
# The peer's own tuning table (solcounter.h): n -> (sieveCuts, matchMinSize, bmiIntrin).
PEER_CFG = {16: (0, 40, False), 17: (0, 40, False), 18: (0, 40, False), 19: (0, 40, True),
            20: (3, 60, True), 21: (3, 60, True), 22: (6, 80, True)}
SIMD = ["sse4_2", "popcnt", "avx", "avx2", "bmi1", "bmi2", "avx512f", "avx512bw", "avx512vl",
        "avx512_vpopcntdq", "asimd", "sve"]


def cpu():
    model, flags = platform.processor() or platform.machine(), set()
    try:
        for line in open("/proc/cpuinfo"):
            key, _, value = line.partition(":")
            key = key.strip()
            if key in ("model name", "Model", "CPU part") and model in ("", platform.machine()):
                model = value.strip()
            if key in ("flags", "Features"):
                flags |= set(value.split())
    except OSError:
        pass
    return model, [f for f in SIMD if f in flags]


def peer_source(a, scratch):
    src = os.path.join(scratch, "peer-src")
    if os.path.isdir(src):
        return src
    if a.peer_src and os.path.isdir(os.path.join(a.peer_src, "objects")):
        # A bare git directory (such as a mirror): export its HEAD.
        os.makedirs(src)
        tar = subprocess.run(["git", "--git-dir", a.peer_src, "archive", "HEAD"],
                             check=True, capture_output=True).stdout
        subprocess.run(["tar", "-x", "-C", src], input=tar, check=True)
    elif a.peer_src:
        shutil.copytree(a.peer_src, src, ignore=shutil.ignore_patterns(".git"))
    else:
        subprocess.run(["git", "clone", "--depth", "1", PEER_URL, src], check=True)
    return src


def build_peer(src, scratch, n, extra_flags):
    tag = re.sub(r"[^A-Za-z0-9]+", "", "".join(extra_flags))
    exe = os.path.join(scratch, f"kluev-{n}" + (f"-{tag}" if tag else ""))
    if os.path.exists(exe):
        return exe
    work = exe.replace("kluev-", "build-")
    shutil.rmtree(work, ignore_errors=True)
    shutil.copytree(src, work)
    cuts, min_size, bmi = PEER_CFG[n]
    path = os.path.join(work, "solcounter.h")
    text = open(path).read()
    text = re.sub(r"inline constexpr int size = \d+;", f"inline constexpr int size = {n};", text)
    text = re.sub(r"\.sieveCuts = \d+", f".sieveCuts = {cuts}", text)
    text = re.sub(r"\.matchMinSize = \d+", f".matchMinSize = {min_size}", text)
    text = re.sub(r"\.bmiIntrin = \w+", f".bmiIntrin = {'true' if bmi else 'false'}", text)
    text = re.sub(r"\.prefetch = \w+", ".prefetch = true", text)
    open(path, "w").write(text)
    for header, include in (("prefetch.h", "prefetchx86.h"), ("bmintrin.h", "bmi2.h")):
        if header == "bmintrin.h" and not bmi:
            continue
        p = os.path.join(work, header)
        text = open(p).read().replace(f'//#include "{include}"', f'#include "{include}"')
        open(p, "w").write(text)
    subprocess.run(["g++", "-std=c++20", "-O3", "-march=native", *extra_flags, "-pthread",
                    "main.cpp", "-o", exe], cwd=work, check=True)
    return exe


def run_peer(exe, threads):
    out = subprocess.run([exe, str(threads)], check=True, capture_output=True, text=True).stdout
    count = int(re.search(r"Result: (\d+)", out).group(1))
    return count, float(re.search(r"Elapsed time: ([0-9.e+-]+)", out).group(1))


def run_ours(n, threads, kernel=None):
    env = dict(os.environ)
    if kernel:
        env["NQUEENS_KERNEL"] = kernel
    out = subprocess.run([BIN, "count", str(n), "--threads", str(threads), "--json", "--quiet"],
                         check=True, capture_output=True, text=True, env=env).stdout
    v = json.loads(out.splitlines()[0])
    return int(v["placements"]), float(v["seconds"])


KERNELS = ("avx512", "avx2", "portable")


def kernels(most=None):
    """The kernels this CPU runs (up to `most`): `nqueens count` refuses a forced kernel it
    cannot run."""
    ok = []
    for k in KERNELS[KERNELS.index(most) if most else 0:]:
        env = dict(os.environ, NQUEENS_KERNEL=k)
        if subprocess.run([BIN, "count", "12", "--quiet"], env=env, capture_output=True).returncode == 0:
            ok.append(k)
    return ok


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--sizes", default="16-20")
    ap.add_argument("--threads", default="1,2")
    ap.add_argument("--peer-src")
    ap.add_argument("--scratch")
    ap.add_argument("--skip-peer", action="store_true")
    ap.add_argument("--kernels-max", type=int, default=19)
    ap.add_argument("--peer-flags", default="",
                    help="more g++ flags for the peer, after -O3 -march=native (e.g. -mno-avx512f)")
    ap.add_argument("--kernel", choices=KERNELS,
                    help="the fastest kernel ours may use (NQUEENS_KERNEL on every run of ours)")
    a = ap.parse_args()
    peer_flags = a.peer_flags.split()
    lo, _, hi = a.sizes.partition("-")
    sizes = list(range(int(lo), int(hi or lo) + 1))
    threads = [int(t) for t in a.threads.split(",")]
    scratch = a.scratch or tempfile.mkdtemp(prefix="nqueens-peers-")
    if os.path.abspath(scratch).startswith(ROOT + os.sep):
        sys.exit("the scratch directory must lie outside the project")
    os.makedirs(scratch, exist_ok=True)
    subprocess.run(["cargo", "build", "--release", "--quiet"], cwd=ROOT, check=True)
    model, flags = cpu()
    avail = kernels(a.kernel)
    lines = [f"CPU: {model}; {os.cpu_count()} logical cores; SIMD flags: {' '.join(flags) or 'none'}; "
             f"kernels: {' '.join(avail)}; ours with {a.kernel or 'the kernel it picks'}; "
             f"peer: g++ -O3 -march=native {a.peer_flags}; date {time.strftime('%Y-%m-%d')}", ""]
    if a.kernel and a.kernel not in avail:
        sys.exit(f"this CPU cannot run the {a.kernel} kernel")
    print(lines[0], flush=True)
    src = None if a.skip_peer else peer_source(a, scratch)
    head = ["n"] + [f"ours {t}T s" for t in threads]
    if not a.skip_peer:
        head += [f"Kluev {t}T s" for t in threads] + [f"peer / ours {t}T" for t in threads]
    head += [f"ours 1T {k} s" for k in avail]
    lines += ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for n in sizes:
        row, ours, peer = [str(n)], {}, {}
        for t in threads:
            c, s = run_ours(n, t, a.kernel)
            assert c == A000170[n], (n, c)
            ours[t] = s
            row.append(f"{s:.2f}")
        if not a.skip_peer:
            exe = build_peer(src, scratch, n, peer_flags)
            for t in threads:
                c, s = run_peer(exe, t)
                assert c == A000170[n], ("peer", n, c)
                peer[t] = s
                row.append(f"{s:.2f}")
            row += [f"{peer[t] / ours[t]:.2f}x" for t in threads]
        for k in avail:
            if n > a.kernels_max:
                row.append("-")
                continue
            c, s = run_ours(n, 1, k)
            assert c == A000170[n], (n, k, c)
            row.append(f"{s:.2f}")
        lines.append("| " + " | ".join(row) + " |")
        print(lines[-1], flush=True)
    os.makedirs(os.path.join(ROOT, "bench-out"), exist_ok=True)
    open(os.path.join(ROOT, "bench-out", "count_peers.md"), "w").write("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
