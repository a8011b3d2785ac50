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
// idle). Each loop turn is one step of a depth-first search: the current row's words in
// registers, the rows above on a stack (`STACK_SHARED`: in shared memory, BLOCK threads
// per block, one column per thread; else in the thread's local memory).
//
// Compile-time settings (NVRTC -D options from gpu.rs): STACK_DEPTH, the deepest stack a
// node of the batch needs (its item's free rows below the node's row); STACK_SHARED and
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

#if defined(__CUDACC__) && defined(STACK_SHARED)
#define AT(word, level) stack[((word) * STACK_DEPTH + (level)) * BLOCK + threadIdx.x]
#else
#define AT(word, level) stack[(word) * STACK_DEPTH + (level)]
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
// to `out`. `stack` holds 4 x STACK_DEPTH words per thread (see AT).
__device__ static void drain(const u32 *tables, const u32 *nodes, const u32 *owners, u64 *out,
                             u32 count, u32 *next, u32 *stack) {
    const u32 *allowed = 0, *gap = 0;
    u32 i = 0, level = 0, leaf = 0;
    u32 l = 0, d = 0, r = 0, todo = 0;
    u64 found = 0;
    bool idle = true;
    for (;;) {
        if (idle) {
            i = take(next);
            if (i >= count) return;
            const u32 *table = tables + (u64)owners[i] * TABLE_WORDS;
            const u32 *node = nodes + 4 * (u64)i;
            const u32 levels = table[0], row = table[1];
            if (row + 1 >= levels) {
                out[i] = bits_set(node[3]);
                continue;
            }
            // Levels count from the node's row: the search runs over levels 0..leaf,
            // whose free squares it counts.
            allowed = table + 2 + row;
            gap = table + 34 + row;
            leaf = levels - 1 - row;
            l = node[0]; d = node[1]; r = node[2]; todo = node[3];
            level = 0; found = 0; idle = false;
        }
        if (todo == 0) {
            if (level == 0) {
                out[i] = found;
                idle = true;
                continue;
            }
            level--;
            l = AT(0, level); d = AT(1, level); r = AT(2, level); todo = AT(3, level);
            continue;
        }
        const u32 bit = todo & (0u - todo);
        todo ^= bit;
        const u32 g = gap[level];
        const u32 nl = (l | bit) << g, nd = d | bit, nr = (r | bit) >> g;
        const u32 free = allowed[level + 1] & ~(nl | nd | nr);
        if (level + 1 == leaf) {
            found += bits_set(free);
            continue;
        }
        if (free == 0) continue;
        AT(0, level) = l; AT(1, level) = d; AT(2, level) = r; AT(3, level) = todo;
        level++;
        l = nl; d = nd; r = nr; todo = free;
    }
}

// `out[i]`, the placements below node i (unweighted), for i < count; `*next` is 0 at the
// launch (the nodes taken so far).
extern "C" __global__ void count_nodes(const u32 *__restrict__ tables, const u32 *__restrict__ nodes,
                                       const u32 *__restrict__ owners, u64 *__restrict__ out,
                                       u32 count, u32 *next) {
#if defined(__CUDACC__) && defined(STACK_SHARED)
    __shared__ u32 stack[4 * STACK_DEPTH * BLOCK];
#else
    u32 stack[4 * STACK_DEPTH];
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
