// The constellation engine's node search (src/count/batch.rs, `count_node`) as a CUDA
// kernel, one thread per node of a batch. The same text is compiled three ways: by NVRTC
// for a GPU (the GPU backend, issue "Count on the GPU"); by NVRTC to PTX in the tests
// (tools/check_cuda_kernel.py, no GPU needed), so a kernel that does not compile is caught;
// and by the host C++ compiler, whose build runs the very same functions over the batches
// `batch.rs` makes and compares every node's count (`batch::tests`).
//
// Layout (batch.rs): per item, 66 words: free rows, the row its nodes sit on, 32 words of
// squares each free row may take, 32 of row gaps; per node, 4 words: columns, down-left
// and down-right diagonals taken as seen from its row, and the row's free squares; per
// node, the position of its item.

#ifndef __CUDACC__
#define __global__
#define __device__
#endif

typedef unsigned int u32;
typedef unsigned long long u64;

#define TABLE_WORDS 66

__device__ static inline u32 bits_set(u32 x) {
#ifdef __CUDACC__
    return __popc(x);
#else
    return __builtin_popcount(x);
#endif
}

// The placements below one node: a depth-first search from its row to the item's last
// free row, with fixed stacks (no allocation, nothing read but the item's table).
__device__ static u64 count_node(const u32 *table, u32 l0, u32 d0, u32 r0, u32 f0) {
    const u32 levels = table[0], row = table[1];
    const u32 *allowed = table + 2, *gap = table + 34;
    const u32 last = levels - 1;
    if (row == last) return bits_set(f0);
    u32 l[32], d[32], r[32], todo[32];
    u32 k = row;
    l[k] = l0; d[k] = d0; r[k] = r0; todo[k] = f0;
    u64 found = 0;
    for (;;) {
        if (todo[k] == 0) {
            if (k == row) return found;
            k--;
            continue;
        }
        const u32 bit = todo[k] & (0u - todo[k]);
        todo[k] ^= bit;
        const u32 g = gap[k];
        const u32 nl = (l[k] | bit) << g, nd = d[k] | bit, nr = (r[k] | bit) >> g;
        const u32 free = allowed[k + 1] & ~(nl | nd | nr);
        if (k + 1 == last) {
            found += bits_set(free);
            continue;
        }
        if (free == 0) continue;
        k++;
        l[k] = nl; d[k] = nd; r[k] = nr; todo[k] = free;
    }
}

// One thread per node: `out[i]`, the placements below node i (unweighted).
extern "C" __global__ void count_nodes(const u32 *tables, const u32 *nodes, const u32 *owners,
                                       u64 *out, u32 count) {
#ifdef __CUDACC__
    const u32 i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= count) return;
    const u32 *n = nodes + 4 * (u64)i;
    out[i] = count_node(tables + (u64)owners[i] * TABLE_WORDS, n[0], n[1], n[2], n[3]);
#else
    // On the host the grid is a loop: the same function over the same nodes.
    for (u32 i = 0; i < count; i++) {
        const u32 *n = nodes + 4 * (u64)i;
        out[i] = count_node(tables + (u64)owners[i] * TABLE_WORDS, n[0], n[1], n[2], n[3]);
    }
#endif
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
    count_nodes(tables, nodes, owners, out, (u32)count);
    for (u64 i = 0; i < count; i++) printf("%llu\n", out[i]);
    return 0;
}
#endif
