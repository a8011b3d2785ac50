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
// idle).
//
// Each step of the depth-first search is written so that nothing it waits for is in
// device memory. Profiled on an H100 (tools/probe_count_gpu.sh, 2026-11-27), the earlier
// step, which read the entry on top of a stack in shared memory, took its row from the
// entry's columns and then read that row's gap and squares from the item's table in
// device memory, issued on 12 % of cycles: 59 % of its stalls waited for the table (the L1
// cache, mostly given over to the stacks, hit 20 % of the time) and 32 % for the stack;
// this one issues on 70 % and counted Q(20) 4x as fast. The entry on top is kept in
// registers with its row; a thread copies
// its item's rows (gap and next row's squares, 8 bytes a row) to its own part of shared
// memory when it takes a node of another item; and the stack below the top is touched only
// to push a parent that has squares left (its child then on top) and to pop one when the
// top is used up with no child. The step takes the top's lowest square, computes the next
// row's free squares from the row's pair, counts them if that row is the last, and else
// makes the child the top.
//
// Compile-time settings (NVRTC -D options from gpu.rs): STACK_DEPTH, the most entries a
// thread's stack and rows hold (its item's free rows below its node's row); STACK_SHARED
// (both in shared memory, the entries of one level of a warp's 32 threads side by side,
// else in each thread's local memory) and BLOCK (threads per block, the launch's).

#ifndef __CUDACC__
#define __global__
#define __device__
#include <stdlib.h>
#endif

typedef unsigned int u32;
typedef unsigned long long u64;

#define TABLE_WORDS 66

#ifndef STACK_DEPTH
#define STACK_DEPTH 32
#endif

#ifdef __CUDACC__
typedef uint4 entry;
typedef uint2 pair;
#else
typedef struct { u32 x, y, z, w; } entry;  // as uint4 on the GPU
typedef struct { u32 x, y; } pair;         // as uint2
#endif

#if defined(__CUDACC__) && defined(STACK_SHARED)
// This thread's level 0 in a block's stacks or rows (its warp's block of 32 x STACK_DEPTH;
// its levels 32 apart, so that a warp's threads at one level read adjacent words), and
// the bytes between its levels. Shared memory is read and written at 32-bit addresses
// that the step keeps (the top's row pair, the stack's next free entry): through
// pointers, the compiler recomputed the shared window's base at every step. Elsewhere
// (the host's build, stacks in local memory) the same code keeps indexes.
#define MINE ((threadIdx.x / 32) * 32 * STACK_DEPTH + threadIdx.x % 32)
#define ROW_STEP (32 * 8)     // bytes from a thread's row pair to its next
#define ENTRY_STEP (32 * 16)  // and from a stack entry to the next

__device__ static inline pair load_row(const pair *, u32 at) {
    pair p;
    asm volatile("ld.shared.v2.u32 {%0, %1}, [%2];" : "=r"(p.x), "=r"(p.y) : "r"(at) : "memory");
    return p;
}

__device__ static inline void store_row(pair *, u32 at, pair p) {
    asm volatile("st.shared.v2.u32 [%0], {%1, %2};" ::"r"(at), "r"(p.x), "r"(p.y) : "memory");
}

// The stores and loads of entries are predicated rather than branched over.
__device__ static inline void store_entry_if(entry *, bool c, u32 at, entry e) {
    asm volatile(
        "{ .reg .pred q; setp.ne.u32 q, %0, 0; @q st.shared.v4.u32 [%1], {%2, %3, %4, %5}; }"
        ::"r"((u32)c), "r"(at), "r"(e.x), "r"(e.y), "r"(e.z), "r"(e.w) : "memory");
}

__device__ static inline entry load_entry_if(const entry *, bool c, u32 at, entry e) {
    asm volatile(
        "{ .reg .pred q; setp.ne.u32 q, %4, 0; @q ld.shared.v4.u32 {%0, %1, %2, %3}, [%5]; }"
        : "+r"(e.x), "+r"(e.y), "+r"(e.z), "+r"(e.w)
        : "r"((u32)c), "r"(at)
        : "memory");
    return e;
}
#else
#define MINE 0
#define ROW_STEP 1
#define ENTRY_STEP 1

__device__ static inline pair load_row(const pair *rows, u32 at) { return rows[at]; }

__device__ static inline void store_row(pair *rows, u32 at, pair p) { rows[at] = p; }

__device__ static inline void store_entry_if(entry *stack, bool c, u32 at, entry e) {
    if (c) stack[at] = e;
}

__device__ static inline entry load_entry_if(const entry *stack, bool c, u32 at, entry e) {
    return c ? stack[at] : e;
}
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

// One step of a thread's search (see above), written with no branch: each memory access and
// each change of state is predicated, so that the warp's threads, pushing, popping or
// neither, stay together (as branches, pops and pushes stalled a fifth of the warps'
// cycles). A thread that is not `busy` (its node done by an earlier step of the same loop
// turn) changes nothing that matters: no memory, no count, no row past its last.
#define STEP                                                                             \
    {                                                                                    \
        const pair p = load_row(rows, row_at);                                           \
        const u32 bit = w & (0u - w);                                                    \
        w ^= bit;                                                                        \
        const u32 nl = (x | bit) << p.y, nd = y | bit, nr = (z | bit) >> p.y;            \
        const u32 free = p.x & ~(nl | nd | nr);                                          \
        const bool leaf = row_at == last_at;                                             \
        found += (leaf && busy) ? bits_set(free) : 0;                                    \
        const bool push = busy && !leaf && free != 0;                                    \
        const bool keep = push && w != 0; /* the parent stays under its child */         \
        CHECK_DEPTH(keep);                                                               \
        const entry top = {x, y, z, w};                                                  \
        store_entry_if(stack, keep, free_at, top);                                       \
        free_at += keep ? ENTRY_STEP : 0;                                                \
        const bool pop = busy && !push && w == 0;                                        \
        const bool back = pop && free_at != stack_at; /* to the entry under the top */   \
        const entry under = load_entry_if(stack, back, free_at - ENTRY_STEP, top);       \
        free_at -= back ? ENTRY_STEP : 0;                                                \
        x = push ? nl : under.x;                                                         \
        y = push ? nd : under.y;                                                         \
        z = push ? nr : under.z;                                                         \
        w = push ? free : under.w;                                                       \
        /* a row's columns: one per row above it */                                      \
        const u32 under_at = row0_at + bits_set(under.y) * ROW_STEP;                     \
        row_at += push ? ROW_STEP : 0;                                                   \
        row_at = back ? under_at : row_at;                                               \
        busy = busy && !(pop && !back);                                                  \
    }

#ifndef __CUDACC__
#define CHECK_DEPTH(keep) if ((keep) && free_at >= STACK_DEPTH) abort()  // the host build checks sizes
#else
#define CHECK_DEPTH(keep)
#endif

// Takes nodes from `*next` until `count` are taken, writing each node's placements (its
// search from its row to its item's last free row, the free squares of that row counted)
// to `out`. `stack` and `rows` are this thread's STACK_DEPTH entries and row pairs (its
// level t ENTRY_STEP and ROW_STEP times t after its level 0). A loop turn takes four steps: the loop's own
// instructions (the branch to take a node, its convergence) took a quarter of a step's.
__device__ static void drain(const u32 *tables, const u32 *nodes, const u32 *owners, u64 *out,
                             u32 count, u32 *next, entry *stack, pair *rows) {
    u32 i = 0, owner = 0xffffffffu, base = 0, levels = 0;  // levels: rows below the node's
    u32 x = 0, y = 0, z = 0, w = 0;  // the top: down-left diagonals, columns, down-right, squares
    bool busy = false, held = false;  // searching a node; holding one (counted or not)
    u64 found = 0;
#if defined(__CUDACC__) && defined(STACK_SHARED)
    const u32 rows_at = (u32)__cvta_generic_to_shared(rows);
    const u32 stack_at = (u32)__cvta_generic_to_shared(stack);
#else
    const u32 rows_at = 0, stack_at = 0;
#endif
    // The top's row pair; the last row's; where row 0 of the board's free rows would be
    // (the node's row less `base` rows: wraps around, harmlessly); the stack's next entry.
    u32 row_at = rows_at, last_at = rows_at, row0_at = rows_at, free_at = stack_at;
    for (;;) {
        if (!busy) {
            if (held) out[i] = found;
            i = take(next);
            if (i >= count) return;
            const u32 o = owners[i];
            const u32 *table = tables + (u64)o * TABLE_WORDS;
            const u32 *node = nodes + 4 * (u64)i;
            const u32 row = table[1];
            if (row + 1 >= table[0]) {
                out[i] = bits_set(node[3]);
                held = false;
                continue;
            }
            if (o != owner) {
                // Row pair t: the gap below row `row + t` and the squares of the next row.
                owner = o;
                base = row;
                levels = table[0] - 1 - row;
#ifndef __CUDACC__
                if (levels > STACK_DEPTH) abort();  // the host build checks the settings' sizes
#endif
                for (u32 t = 0; t < levels; t++) {
                    const pair p = {table[2 + row + t + 1], table[34 + row + t]};
                    store_row(rows, rows_at + t * ROW_STEP, p);
                }
                last_at = rows_at + (levels - 1) * ROW_STEP;
                row0_at = rows_at - base * ROW_STEP;
            }
            x = node[0];
            y = node[1];
            z = node[2];
            w = node[3];
            row_at = rows_at;
            free_at = stack_at;
            found = 0;
            busy = true;
            held = true;
        }
        STEP STEP STEP STEP
    }
}

// `out[i]`, the placements below node i (unweighted), for i < count; `*next` is 0 at the
// launch (the nodes taken so far).
extern "C" __global__ void count_nodes(const u32 *__restrict__ tables, const u32 *__restrict__ nodes,
                                       const u32 *__restrict__ owners, u64 *__restrict__ out,
                                       u32 count, u32 *next) {
#if defined(__CUDACC__) && defined(STACK_SHARED)
    __shared__ entry stack[STACK_DEPTH * BLOCK];
    __shared__ pair rows[STACK_DEPTH * BLOCK];
#else
    entry stack[STACK_DEPTH];
    pair rows[STACK_DEPTH];
#endif
    drain(tables, nodes, owners, out, count, next, stack + MINE, rows + MINE);
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
