#!/usr/bin/env python3
"""`nqueens count N --gpu` side by side with ours on all CPU cores, a plain CUDA bitmask
backtracker (tools/peers/plain_backtracker.cu, built with nvcc in a scratch directory) and
Kluev's N-Queens-Count-Sol on the CPU, n = 16..22: the GPU measurement of the issue "Count
on the GPU", for a machine with a GPU, its driver and the CUDA toolkit. Not a test: prints
a Markdown table for BENCHMARKS.md, naming the GPU and the CPU; every count is checked
against OEIS A000170.

  python3 tools/bench_count_gpu.py --bin PATH/nqueens-built-with-feature-gpu
      [--sizes 16-22] [--scratch DIR] [--peer-src DIR] [--skip-plain] [--skip-peer]

A run of ours with --gpu that fell back to the CPU (no GPU found: its message on standard
error) is reported as such, never as a GPU time.
"""
import argparse, json, os, re, shutil, subprocess, sys, tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import bench_count_peers as peers  # noqa: E402  (the peer's build, the CPU's name)

A000170 = peers.A000170


def ours(bin_, n, gpu):
    args = [bin_, "count", str(n), "--json", "--quiet"] + (["--gpu"] if gpu else [])
    p = subprocess.run(args, check=True, capture_output=True, text=True)
    v = json.loads(p.stdout.splitlines()[0])
    fell_back = gpu and "counting on the CPU" in p.stderr
    device = re.search(r"counting on (.+)", p.stderr)
    return int(v["placements"]), float(v["seconds"]), fell_back, (device.group(1) if device else "")


def plain(scratch, n):
    exe = os.path.join(scratch, "plain")
    if not os.path.exists(exe):
        subprocess.run(["nvcc", "-O3", "-o", exe, os.path.join(HERE, "peers", "plain_backtracker.cu")],
                       check=True)
    out = subprocess.run([exe, str(n)], check=True, capture_output=True, text=True).stdout.split()
    return int(out[1]), float(out[2])


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bin", required=True)
    ap.add_argument("--sizes", default="16-22")
    ap.add_argument("--scratch")
    ap.add_argument("--peer-src")
    ap.add_argument("--skip-plain", action="store_true")
    ap.add_argument("--skip-peer", action="store_true")
    a = ap.parse_args()
    lo, hi = (int(x) for x in a.sizes.split("-"))
    scratch = a.scratch or tempfile.mkdtemp(prefix="bench-gpu-")
    os.makedirs(scratch, exist_ok=True)
    gpu_name = "no GPU found"
    if shutil.which("nvidia-smi"):
        gpu_name = subprocess.run(["nvidia-smi", "--query-gpu=name", "--format=csv,noheader"],
                                  capture_output=True, text=True).stdout.strip() or gpu_name
    model, flags = peers.cpu()
    cores = os.cpu_count()
    print(f"GPU: {gpu_name}; CPU: {model}, {cores} logical cores; SIMD: {' '.join(flags)}")
    print("| n | ours --gpu s | ours CPU, all cores s | plain CUDA backtracker s | Kluev, all cores s |")
    print("|---:|---:|---:|---:|---:|")
    src = None if a.skip_peer else peers.peer_source(a, scratch)
    for n in range(lo, hi + 1):
        row = [str(n)]
        count, s, fell_back, _ = ours(a.bin, n, True)
        assert count == A000170[n], (n, count)
        row.append("fell back to the CPU" if fell_back else f"{s:.2f}")
        count, s, _, _ = ours(a.bin, n, False)
        assert count == A000170[n], (n, count)
        row.append(f"{s:.2f}")
        if a.skip_plain or shutil.which("nvcc") is None:
            row.append("-")
        else:
            count, s = plain(scratch, n)
            assert count == A000170[n], (n, count)
            row.append(f"{s:.2f}")
        if src is None or n not in peers.PEER_CFG:
            row.append("-")
        else:
            count, s = peers.run_peer(peers.build_peer(src, scratch, n, []), cores)
            assert count == A000170[n], (n, count)
            row.append(f"{s:.2f}")
        print("| " + " | ".join(row) + " |", flush=True)


if __name__ == "__main__":
    main()
