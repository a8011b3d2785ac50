// The constellation engine's node search (src/count/batch.rs, `count_node`) as a CUDA
// kernel. The same text is compiled three ways: by NVRTC for a GPU (the GPU backend,
// src/count/gpu.rs); by NVRTC to PTX in the tests (tools/check_cuda_kernel.py, no GPU
// needed), so a kernel that does not compile is caught; and by the host C++ compiler,
// whose build runs the very same state machine (`drain`, one "thread" taking every node)
// over the batches `batch.rs` makes and compares every node's count (`batch::tests`).
//
// Layout (batch.rs): per item, 66 words: free rows, the row its nodes sit on, 32 words of
// squares each free row may take, 32 of row gaps; per node, 4 words: columns, down-left
// and down-right diagonals taken as seen from its row, and the row's free squares; per
// node, the position of its item.
//
// Why a thread takes node after node from a shared counter instead of one node each:
// nodes differ in size by orders of magnitude, and a warp runs until its slowest thread
// ends; a thread whose node is done takes the next one at once, so the warp's threads
// stay busy on the same loop until the batch runs out (only the last nodes leave lanes
// idle). Each loop turn is one step of a depth-first search written without branches
// but the node's end, so that a warp's threads, each at its own step, run the same
// instructions: read the stack's top entry (columns, both diagonals, squares left: one
// 16-byte word), take its lowest square, pop the entry if that was its last (the child
// then takes its place), and push the child unless it is on the last row, whose free
// squares are counted instead. A row's index is the number of queens above it (the
// columns taken), so the entries need no more. Stacks are in shared memory
// (`STACK_SHARED`: the entries of one level of a warp's 32 threads side by side, so a
// warp reads 512 contiguous bytes) or in each thread's local memory.
//
// Compile-time settings (NVRTC -D options from gpu.rs): STACK_DEPTH, the most entries a
// thread's stack holds (its item's free rows below its node's row); STACK_SHARED and
// BLOCK (threads per block, the launch's block size).

#ifndef __CUDACC__
#define __global__
#define __device__
#endif

typedef unsigned int u32;
typedef unsigned long long u64;

#define TABLE_WORDS 66

#ifndef STACK_DEPTH
#define STACK_DEPTH 32
#endif

#ifdef __CUDACC__
typedef uint4 entry;
#else
typedef struct { u32 x, y, z, w; } entry;  // columns... as uint4 on the GPU
#endif

#if defined(__CUDACC__) && defined(STACK_SHARED)
// Entry `t` of this thread's stack: level t of its warp's block of 32 x STACK_DEPTH.
#define STACK_BASE ((threadIdx.x / 32) * 32 * STACK_DEPTH + threadIdx.x % 32)
#define STACK_STRIDE 32
#else
#define STACK_BASE 0
#define STACK_STRIDE 1
#endif

__device__ static inline u32 bits_set(u32 x) {
#ifdef __CUDACC__
    return __popc(x);
#else
    return __builtin_popcount(x);
#endif
}

__device__ static inline u32 take(u32 *next) {
#ifdef __CUDACC__
    return atomicAdd(next, 1u);
#else
    return (*next)++;
#endif
}

// Takes nodes from `*next` until `count` are taken, writing each node's placements (its
// search from its row to its item's last free row, the free squares of that row counted)
// to `out`. `stack` holds the thread's STACK_DEPTH entries (see STACK_BASE).
__device__ static void drain(const u32 *tables, const u32 *nodes, const u32 *owners, u64 *out,
                             u32 count, u32 *next, entry *stack) {
    const u32 *allowed = 0, *gap = 0;
    u32 i = 0, top = 0, last = 0;  // top: entries on the stack
    u64 found = 0;
    for (;;) {
        if (top == 0) {
            if (allowed) out[i] = found;
            allowed = 0;
            i = take(next);
            if (i >= count) return;
            const u32 *table = tables + (u64)owners[i] * TABLE_WORDS;
            const u32 *node = nodes + 4 * (u64)i;
            const u32 levels = table[0], row = table[1];
            if (row + 1 >= levels) {
                out[i] = bits_set(node[3]);
                continue;
            }
            allowed = table + 2;
            gap = table + 34;
            last = levels - 1;
            found = 0;
            entry first = {node[0], node[1], node[2], node[3]};
            stack[STACK_BASE] = first;
            top = 1;
        }
        // The step: x, y, z, w = down-left diagonals, columns, down-right diagonals and
        // squares left of the entry on top, whose row is the number of its columns.
        entry *at = &stack[STACK_BASE + (top - 1) * STACK_STRIDE];
        const entry e = *at;
        const u32 bit = e.w & (0u - e.w);
        const u32 todo = e.w ^ bit;
        at->w = todo;
        const u32 k = bits_set(e.y);
        top -= todo == 0;
        const u32 g = gap[k];
        const u32 nl = (e.x | bit) << g, nd = e.y | bit, nr = (e.z | bit) >> g;
        const u32 free = allowed[k + 1] & ~(nl | nd | nr);
        const bool leaf = k + 1 == last;
        found += leaf ? bits_set(free) : 0;
        if (!leaf && free != 0) {
            entry child = {nl, nd, nr, free};
            stack[STACK_BASE + top * STACK_STRIDE] = child;
            top++;
        }
    }
}

// `out[i]`, the placements below node i (unweighted), for i < count; `*next` is 0 at the
// launch (the nodes taken so far).
extern "C" __global__ void count_nodes(const u32 *__restrict__ tables, const u32 *__restrict__ nodes,
                                       const u32 *__restrict__ owners, u64 *__restrict__ out,
                                       u32 count, u32 *next) {
#if defined(__CUDACC__) && defined(STACK_SHARED)
    __shared__ entry stack[STACK_DEPTH * BLOCK];
#else
    entry stack[STACK_DEPTH];
#endif
    drain(tables, nodes, owners, out, count, next, stack);
}

#if !defined(__CUDACC__) && defined(NQUEENS_HOST_MAIN)
#include <stdio.h>
#include <stdlib.h>
// A program for the tests: reads `items nodes`, then the tables, nodes and owners as
// little-endian u32 words from standard input; prints each node's count, one per line.
int main(void) {
    u32 head[2];
    if (fread(head, 4, 2, stdin) != 2) return 2;
    const u64 items = head[0], count = head[1];
    u32 *tables = (u32 *)malloc(items * TABLE_WORDS * 4 + 4);
    u32 *nodes = (u32 *)malloc(count * 16 + 4);
    u32 *owners = (u32 *)malloc(count * 4 + 4);
    u64 *out = (u64 *)malloc(count * 8 + 8);
    if (!tables || !nodes || !owners || !out) return 2;
    if (fread(tables, 4, items * TABLE_WORDS, stdin) != items * TABLE_WORDS) return 2;
    if (fread(nodes, 4, count * 4, stdin) != count * 4) return 2;
    if (fread(owners, 4, count, stdin) != count) return 2;
    for (u64 i = 0; i < count; i++)
        if (owners[i] >= items) return 2;
    u32 next = 0;
    count_nodes(tables, nodes, owners, out, (u32)count, &next);
    for (u64 i = 0; i < count; i++) printf("%llu\n", out[i]);
    return 0;
}
#endif
