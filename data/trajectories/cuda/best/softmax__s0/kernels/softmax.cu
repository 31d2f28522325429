// v2: one block per row. Threads stride through the row (coalesced), keep an online (max, sum) pair, combine
// pairs with warp shuffles and shared memory, then write exp(x - max) / sum in a second coalesced sweep.
#include <cstdint>
#include <cuda_runtime.h>

__device__ __forceinline__ void combine(float& m, float& s, float m2, float s2) {
    float mn = fmaxf(m, m2);
    s = (m == -INFINITY ? 0.f : s * __expf(m - mn)) + (m2 == -INFINITY ? 0.f : s2 * __expf(m2 - mn));
    m = mn;
}

template <int THREADS>
__global__ void softmax_block(const float* __restrict__ x, float* __restrict__ y, int64_t cols) {
    const float* xr = x + blockIdx.x * cols; float* yr = y + blockIdx.x * cols;
    float m = -INFINITY, s = 0.f;
    for (int64_t c = threadIdx.x; c < cols; c += THREADS) combine(m, s, xr[c], 1.f);
    for (int o = 16; o > 0; o >>= 1) combine(m, s, __shfl_xor_sync(0xffffffff, m, o), __shfl_xor_sync(0xffffffff, s, o));
    __shared__ float sm[THREADS / 32], ss[THREADS / 32];
    const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    if (lane == 0) { sm[warp] = m; ss[warp] = s; }
    __syncthreads();
    if (warp == 0) {
        m = lane < THREADS / 32 ? sm[lane] : -INFINITY; s = lane < THREADS / 32 ? ss[lane] : 0.f;
        for (int o = 16; o > 0; o >>= 1) combine(m, s, __shfl_xor_sync(0xffffffff, m, o), __shfl_xor_sync(0xffffffff, s, o));
        if (lane == 0) { sm[0] = m; ss[0] = s; }
    }
    __syncthreads();
    const float mx = sm[0], inv = 1.f / ss[0];
    for (int64_t c = threadIdx.x; c < cols; c += THREADS) yr[c] = __expf(xr[c] - mx) * inv;
}

extern "C" void softmax_launch(const float* x, float* y, int64_t rows, int64_t cols, void* stream) {
    softmax_block<512><<<rows, 512, 0, (cudaStream_t)stream>>>(x, y, cols);
}
