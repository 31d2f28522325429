// v2: more memory-level parallelism. A block covers 32 columns x 8 row-groups: each thread sums a strip of
// dimension 1 with 4 independent accumulators, then the 8 partial sums per column are combined in shared memory.
#include <cstdint>
#include <cuda_runtime.h>

__global__ void sum_dim1_split(const float* __restrict__ x, float* __restrict__ y, int64_t D1, int64_t D2) {
    const int64_t b = blockIdx.y, j = blockIdx.x * 32 + threadIdx.x;
    __shared__ float part[8][33];
    float a0 = 0.f, a1 = 0.f, a2 = 0.f, a3 = 0.f;
    if (j < D2) {
        const float* xb = x + b * D1 * D2 + j;
        int64_t i = threadIdx.y;
        for (; i + 24 < D1; i += 32) {
            a0 += xb[i * D2]; a1 += xb[(i + 8) * D2]; a2 += xb[(i + 16) * D2]; a3 += xb[(i + 24) * D2];
        }
        for (; i < D1; i += 8) a0 += xb[i * D2];
    }
    part[threadIdx.y][threadIdx.x] = (a0 + a1) + (a2 + a3);
    __syncthreads();
    if (threadIdx.y == 0 && j < D2) {
        float s = 0.f;
        for (int r = 0; r < 8; ++r) s += part[r][threadIdx.x];
        y[b * D2 + j] = s;
    }
}

extern "C" void sum_dim1_launch(const float* x, float* y, int64_t B, int64_t D1, int64_t D2, void* stream) {
    dim3 grid((unsigned)((D2 + 31) / 32), (unsigned)B), block(32, 8);
    sum_dim1_split<<<grid, block, 0, (cudaStream_t)stream>>>(x, y, D1, D2);
}
