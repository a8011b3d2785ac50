// A plain CUDA bitmask backtracker for regular queens, the baseline of
// tools/bench_count_gpu.py (written for this project, not taken from a peer): the host
// enumerates every placement of the first PREFIX rows (left half of the first row,
// doubled by the mirror, the middle column once for odd n), and one GPU thread searches the
// rest of the board below each, depth first with bitmasks.
//
// Build: nvcc -O3 -o plain plain_backtracker.cu; run: ./plain N -> prints "N COUNT SECONDS".
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <vector>

typedef unsigned int u32;
typedef unsigned long long u64;

__global__ void below(const u32 *l0, const u32 *d0, const u32 *r0, const u64 *w, u32 count,
                      int rows, u32 full, u64 *out) {
    u32 i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= count) return;
    u32 l[32], d[32], r[32], todo[32];
    int k = 0;
    l[0] = l0[i]; d[0] = d0[i]; r[0] = r0[i];
    todo[0] = full & ~(l[0] | d[0] | r[0]);
    u64 found = 0;
    while (k >= 0) {
        if (todo[k] == 0) { k--; continue; }
        u32 bit = todo[k] & (0u - todo[k]);
        todo[k] ^= bit;
        if (k + 1 == rows) { found++; continue; }
        l[k + 1] = ((l[k] | bit) << 1) & full;
        d[k + 1] = d[k] | bit;
        r[k + 1] = (r[k] | bit) >> 1;
        todo[k + 1] = full & ~(l[k + 1] | d[k + 1] | r[k + 1]);
        k++;
    }
    out[i] = found * w[i];
}

int main(int argc, char **argv) {
    int n = argc > 1 ? atoi(argv[1]) : 16;
    int prefix = n > 12 ? 6 : 2;
    u32 full = (1u << n) - 1;
    std::vector<u32> L, D, R;
    std::vector<u64> W;
    // Prefixes: depth-first over the first `prefix` rows; the first row's queen in the left
    // half counts twice (mirror), the middle column of odd n once.
    struct F { u32 l, d, r; int row; u64 w; };
    std::vector<F> stack;
    for (int c = 0; c < (n + 1) / 2; c++) {
        u32 bit = 1u << c;
        u64 w = (n % 2 == 1 && c == n / 2) ? 1 : 2;
        stack.push_back({((bit << 1) & full), bit, bit >> 1, 1, w});
    }
    while (!stack.empty()) {
        F f = stack.back();
        stack.pop_back();
        if (f.row == prefix) { L.push_back(f.l); D.push_back(f.d); R.push_back(f.r); W.push_back(f.w); continue; }
        u32 todo = full & ~(f.l | f.d | f.r);
        while (todo) {
            u32 bit = todo & (0u - todo);
            todo ^= bit;
            stack.push_back({((f.l | bit) << 1) & full, f.d | bit, (f.r | bit) >> 1, f.row + 1, f.w});
        }
    }
    auto t0 = std::chrono::steady_clock::now();
    u32 count = L.size();
    u32 *l, *d, *r; u64 *w, *out;
    cudaMalloc(&l, count * 4); cudaMalloc(&d, count * 4); cudaMalloc(&r, count * 4);
    cudaMalloc(&w, count * 8); cudaMalloc(&out, count * 8);
    cudaMemcpy(l, L.data(), count * 4, cudaMemcpyHostToDevice);
    cudaMemcpy(d, D.data(), count * 4, cudaMemcpyHostToDevice);
    cudaMemcpy(r, R.data(), count * 4, cudaMemcpyHostToDevice);
    cudaMemcpy(w, W.data(), count * 8, cudaMemcpyHostToDevice);
    below<<<(count + 127) / 128, 128>>>(l, d, r, w, count, n - prefix, full, out);
    std::vector<u64> res(count);
    cudaMemcpy(res.data(), out, count * 8, cudaMemcpyDeviceToHost);
    u64 total = 0;
    for (u64 x : res) total += x;
    double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    printf("%d %llu %.3f\n", n, total, s);
    return 0;
}
