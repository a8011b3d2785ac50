#!/usr/bin/env python3
"""`nqueens count N --gpu` (the GPU alone, its default, and with every CPU thread beside it) side by
side with ours on all CPU cores, a plain CUDA bitmask backtracker
(tools/peers/plain_backtracker.cu, built with nvcc in a scratch directory) and Kluev's
N-Queens-Count-Sol on the CPU: the GPU measurement of the issue "Count on the GPU", for a
machine with a GPU, its driver and the CUDA toolkit. Not a test: prints Markdown tables for
BENCHMARKS.md naming the GPU and the CPU, and one JSON line per run to --log; every count is
checked against OEIS A000170.

  python3 tools/bench_count_gpu.py --bin PATH/nqueens-built-with-feature-gpu
      [--sizes 16-22] [--cpu-sizes 16-20] [--plain-sizes 16-20] [--tune 19]
      [--deadline SECONDS] [--log FILE] [--scratch DIR] [--peer-src DIR] [--skip-peer]

--tune N first counts Q(N) on the GPU alone with each setting (NQUEENS_GPU_DEPTH, _BLOCK,
_STACK; README, "Counting on a GPU") and uses the fastest for the tables. --deadline stops
starting runs that would end past that many seconds from the start (projected from the
last size's time), so a machine lent for minutes returns what it measured. A run of ours
with --gpu that fell back to the CPU (its message on standard error) is reported as such,
never as a GPU time.
"""
import argparse, itertools, json, os, re, shutil, subprocess, sys, tempfile, time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import bench_count_peers as peers  # noqa: E402  (the peer's build, the CPU's name)

# OEIS A000170, n = 0..23.
A000170 = [1, 1, 0, 0, 2, 10, 4, 40, 92, 352, 724, 2680, 14200, 73712, 365596, 2279184,
           14772512, 95815104, 666090624, 4968057848, 39029188884, 314666222712,
           2691008701644, 24233937684440]
assert all(A000170[n] == v for n, v in peers.A000170.items())
START = time.monotonic()
LOG = None


def log(record):
    if LOG:
        with open(LOG, "a") as f:
            f.write(json.dumps(record) + "\n")


def left(deadline):
    return deadline - (time.monotonic() - START) if deadline else None


def ours(bin_, n, gpu, env_extra, timeout):
    """(count, wall seconds, count seconds, how: 'gpu', 'fell back: why', 'cpu', split)."""
    args = [bin_, "count", str(n), "--json"] + (["--gpu"] if gpu else [])
    env = dict(os.environ, **env_extra)
    t = time.monotonic()
    p = subprocess.run(args, capture_output=True, text=True, env=env, timeout=timeout)
    wall = time.monotonic() - t
    if p.returncode != 0:
        raise RuntimeError(f"nqueens count {n} {env_extra}: exit {p.returncode}: {p.stderr.strip()}")
    v = json.loads(p.stdout.splitlines()[0])
    how, split = "cpu", ""
    if gpu:
        m = re.search(r"--gpu: (.*); counting (the rest )?on the CPU", p.stderr)
        how = f"fell back: {m.group(1)}" if m else "gpu"
        s = re.search(r"--gpu: (\d+) items counted on .*, (\d+) on the CPU", p.stderr)
        split = f"{s.group(1)}/{s.group(2)}" if s else ""
    record = dict(n=n, gpu=gpu, env=env_extra, count=int(v["placements"]), wall=wall,
                  seconds=float(v["seconds"]), how=how, split=split, stderr=p.stderr[-2000:])
    log(record)
    if record["count"] != A000170[n]:
        raise RuntimeError(f"Q({n}) = {record['count']}, not {A000170[n]}: {record}")
    return record


def plain(scratch, n, timeout):
    exe = os.path.join(scratch, "plain")
    if not os.path.exists(exe):
        subprocess.run(["nvcc", "-O3", "-o", exe, os.path.join(HERE, "peers", "plain_backtracker.cu")],
                       check=True)
    out = subprocess.run([exe, str(n)], check=True, capture_output=True, text=True,
                         timeout=timeout).stdout.split()
    log(dict(n=n, plain=True, count=int(out[1]), seconds=float(out[2])))
    assert int(out[1]) == A000170[n], (n, out)
    return float(out[2])


def span(text):
    """A range of board sizes, "LO-HI" (argparse's type: a bad one is a usage error)."""
    try:
        lo, hi = (int(x) for x in text.split("-"))
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r}: expected LO-HI, such as 16-22")
    if not 4 <= lo <= hi <= 23:
        raise argparse.ArgumentTypeError(f"{text!r}: expected 4 <= LO <= HI <= 23")
    return range(lo, hi + 1)


def main():
    global LOG
    ap = argparse.ArgumentParser()
    ap.add_argument("--bin", required=True)
    ap.add_argument("--sizes", type=span, default=span("16-22"))
    ap.add_argument("--cpu-sizes", type=span, default=span("16-20"))
    ap.add_argument("--plain-sizes", type=span, default=span("16-20"))
    ap.add_argument("--tune", type=lambda t: span(f"{t}-{t}")[0])
    ap.add_argument("--tune-depths", default="3,4")
    ap.add_argument("--tune-blocks", default="64,128,256")
    ap.add_argument("--tune-stacks", default="local,shared")
    ap.add_argument("--deadline", type=float)
    ap.add_argument("--log")
    ap.add_argument("--scratch")
    ap.add_argument("--peer-src")
    ap.add_argument("--skip-peer", action="store_true")
    a = ap.parse_args()
    LOG = a.log
    scratch = a.scratch or tempfile.mkdtemp(prefix="bench-gpu-")
    os.makedirs(scratch, exist_ok=True)
    if not a.scratch:
        import atexit
        atexit.register(shutil.rmtree, scratch, True)
    gpu_name = "no GPU found"
    if shutil.which("nvidia-smi"):
        gpu_name = subprocess.run(["nvidia-smi", "--query-gpu=name", "--format=csv,noheader"],
                                  capture_output=True, text=True).stdout.strip() or gpu_name
    model, flags = peers.cpu()
    cores = os.cpu_count()
    print(f"GPU: {gpu_name}; CPU: {model}, {cores} logical cores; SIMD: {' '.join(flags)}",
          flush=True)
    best = {}
    if a.tune:
        print(f"\nQ({a.tune}) on the GPU alone (NQUEENS_GPU_CPU_THREADS=0), wall seconds:\n")
        print("| depth | block | stacks | wall s | count s |\n|---:|---:|---|---:|---:|", flush=True)
        tried = []
        for depth, block, stack in itertools.product(a.tune_depths.split(","),
                                                     a.tune_blocks.split(","),
                                                     a.tune_stacks.split(",")):
            env = dict(NQUEENS_GPU_DEPTH=depth, NQUEENS_GPU_BLOCK=block, NQUEENS_GPU_STACK=stack,
                       NQUEENS_GPU_CPU_THREADS="0")
            budget = left(a.deadline)
            if budget is not None and budget < 30:
                break
            try:
                r = ours(a.bin, a.tune, True, env, timeout=min(120, budget or 120))
            except (RuntimeError, subprocess.TimeoutExpired) as e:
                print(f"| {depth} | {block} | {stack} | failed: {str(e)[:200]} | |", flush=True)
                continue
            if r["how"] != "gpu":
                print(f"| {depth} | {block} | {stack} | {r['how']} | |", flush=True)
                continue
            tried.append((r["wall"], env))
            print(f"| {depth} | {block} | {stack} | {r['wall']:.2f} | {r['seconds']:.2f} |", flush=True)
        if tried:
            best = min(tried, key=lambda t: t[0])[1]
            best.pop("NQUEENS_GPU_CPU_THREADS")
            print(f"\nfastest: {best}", flush=True)
    print(f"\nWall seconds (process start to exit, NVRTC compile included); settings {best or 'default'}:\n")
    print(f"| n | ours --gpu s | ours --gpu, {cores} CPU threads beside s | items GPU/CPU | ours CPU, all cores s | plain CUDA backtracker s | Kluev, all cores s |")
    print("|---:|---:|---:|---:|---:|---:|---:|", flush=True)
    src = None if a.skip_peer else peers.peer_source(a, scratch)
    last = {}
    cpu_sizes, plain_sizes = a.cpu_sizes, a.plain_sizes

    def timed(key, n, fn):
        """fn() unless its projection (last size's time x 8) passes the deadline."""
        budget = left(a.deadline)
        if budget is not None and key in last and last[key] * 8 > budget:
            return "-"
        try:
            s = fn(budget)
        except subprocess.TimeoutExpired:
            return "timed out"
        except RuntimeError as e:
            return f"failed: {str(e)[:120]}"
        last[key] = s
        return f"{s:.2f}"

    for n in a.sizes:
        row, split = [str(n)], ""

        def on_gpu(env, budget):
            nonlocal split
            r = ours(a.bin, n, True, env, budget)
            if r["how"] != "gpu":
                raise RuntimeError(r["how"])
            if env.get("NQUEENS_GPU_CPU_THREADS", "0") != "0":
                split = r["split"]
            return r["wall"]

        row.append(timed("gpu", n, lambda b: on_gpu(best, b)))
        row.append(timed("both", n, lambda b: on_gpu(dict(best, NQUEENS_GPU_CPU_THREADS=str(cores)), b)))
        row.append(split)
        row.append(timed("cpu", n, lambda b: ours(a.bin, n, False, {}, b)["wall"]) if n in cpu_sizes else "-")
        if n in plain_sizes and shutil.which("nvcc"):
            row.append(timed("plain", n, lambda b: plain(scratch, n, b)))
        else:
            row.append("-")
        if src is None or n not in peers.PEER_CFG:
            row.append("-")
        else:
            row.append(timed("kluev", n, lambda b: peers.run_peer(peers.build_peer(src, scratch, n, []), cores)[1]))
        print("| " + " | ".join(row) + " |", flush=True)


if __name__ == "__main__":
    main()
