#!/usr/bin/env python3
"""Compiles the count's CUDA kernel (src/count/batch.cu) to PTX with NVRTC, as the GPU
backend compiles it at run time, so that a kernel that does not compile fails the tests on
machines without a GPU. NVRTC comes from PyPI (the nvidia-cuda-nvrtc-cu12 wheel: no GPU,
driver or toolkit needed); tools/test.sh installs it in a virtual environment.

Usage: tools/check_cuda_kernel.py [--arch compute_80,compute_90] [--lib PATH/libnvrtc.so.12]
Exit 0 when the kernel compiles for every architecture named, with its stacks in local
and in shared memory as src/count/gpu.rs builds it (prints the PTX size and the kernel's
entry), 1 with NVRTC's log otherwise (warnings included), 2 when NVRTC cannot be loaded.
"""

import argparse
import ctypes
import glob
import os
import sys
import sysconfig

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SOURCE = os.path.join(ROOT, "src", "count", "batch.cu")


def find_nvrtc(given):
    if given:
        return given
    site = sysconfig.get_paths()["purelib"]
    found = sorted(glob.glob(os.path.join(site, "nvidia", "cuda_nvrtc", "lib", "libnvrtc.so*")))
    found = [f for f in found if "builtins" not in f and ".alt." not in f]
    return found[0] if found else "libnvrtc.so.12"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--arch", default="compute_80,compute_90")
    ap.add_argument("--lib")
    a = ap.parse_args()
    path = find_nvrtc(a.lib)
    try:
        nvrtc = ctypes.CDLL(path)
    except OSError as e:
        print(f"check_cuda_kernel: cannot load NVRTC ({path}): {e}", file=sys.stderr)
        return 2
    nvrtc.nvrtcGetErrorString.restype = ctypes.c_char_p
    source = open(SOURCE, "rb").read()
    # The settings gpu.rs passes: stack depth and block size, stacks local or shared.
    variants = [["-DSTACK_DEPTH=16", "-DBLOCK=128"],
                ["-DSTACK_DEPTH=16", "-DBLOCK=128", "-DSTACK_SHARED"],
                ["-DSTACK_DEPTH=26", "-DBLOCK=64", "-DSTACK_SHARED"]]
    for arch, defines in [(arch, v) for arch in a.arch.split(",") for v in variants]:
        prog = ctypes.c_void_p()
        rc = nvrtc.nvrtcCreateProgram(ctypes.byref(prog), source, b"batch.cu", 0, None, None)
        if rc != 0:
            print(f"nvrtcCreateProgram: {nvrtc.nvrtcGetErrorString(rc).decode()}", file=sys.stderr)
            return 1
        opts = [f"--gpu-architecture={arch}".encode()] + [d.encode() for d in defines]
        arr = (ctypes.c_char_p * len(opts))(*opts)
        rc = nvrtc.nvrtcCompileProgram(prog, len(opts), arr)
        size = ctypes.c_size_t()
        nvrtc.nvrtcGetProgramLogSize(prog, ctypes.byref(size))
        log = ctypes.create_string_buffer(size.value)
        nvrtc.nvrtcGetProgramLog(prog, log)
        if rc != 0:
            print(f"batch.cu does not compile for {arch}: "
                  f"{nvrtc.nvrtcGetErrorString(rc).decode()}\n{log.value.decode()}", file=sys.stderr)
            return 1
        nvrtc.nvrtcGetPTXSize(prog, ctypes.byref(size))
        ptx = ctypes.create_string_buffer(size.value)
        nvrtc.nvrtcGetPTX(prog, ptx)
        text = ptx.value.decode()
        if ".entry count_nodes" not in text:
            print(f"batch.cu for {arch}: no entry count_nodes in the PTX", file=sys.stderr)
            return 1
        warnings = log.value.decode().strip()
        if warnings:
            print(f"batch.cu for {arch} {' '.join(defines)}: warnings\n{warnings}", file=sys.stderr)
            return 1
        print(f"batch.cu -> PTX for {arch} {' '.join(defines)}: {len(text)} bytes, entry count_nodes")
        nvrtc.nvrtcDestroyProgram(ctypes.byref(prog))
    return 0


if __name__ == "__main__":
    sys.exit(main())
