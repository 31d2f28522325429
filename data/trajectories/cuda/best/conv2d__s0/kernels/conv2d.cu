// v2: shared-memory tiling. A 16x16 block computes a 16x16 output tile for 8 output channels at once: per input
// channel it stages the 18x18 input patch (halo included, zero padding applied at load) and the 8x9 weights in
// shared memory, so each input value is read from global memory once per 8 output channels instead of 9x per
// output element.
#include <cstdint>
#include <cuda_runtime.h>

constexpr int TILE = 16, CO_PER = 8;

__global__ void __launch_bounds__(256) conv3x3_tiled(const float* __restrict__ x, const float* __restrict__ w,
                                                     const float* __restrict__ bias, float* __restrict__ y,
                                                     int Ci, int H, int W, int Co, int P, int Ho, int Wo, int co_groups) {
    __shared__ float xs[TILE + 2][TILE + 2];
    __shared__ float ws[CO_PER][9];
    const int n = blockIdx.z / co_groups, cog = blockIdx.z % co_groups, co0 = cog * CO_PER;
    const int oh0 = blockIdx.y * TILE, ow0 = blockIdx.x * TILE, ty = threadIdx.y, tx = threadIdx.x, tid = ty * TILE + tx;
    float acc[CO_PER];
    #pragma unroll
    for (int c = 0; c < CO_PER; ++c) acc[c] = (co0 + c < Co) ? bias[co0 + c] : 0.f;
    for (int ci = 0; ci < Ci; ++ci) {
        const float* xp = x + ((int64_t)n * Ci + ci) * H * W;
        for (int e = tid; e < (TILE + 2) * (TILE + 2); e += TILE * TILE) {
            const int r = e / (TILE + 2), c = e % (TILE + 2), ih = oh0 + r - P, iw = ow0 + c - P;
            xs[r][c] = (ih >= 0 && ih < H && iw >= 0 && iw < W) ? xp[(int64_t)ih * W + iw] : 0.f;
        }
        if (tid < CO_PER * 9) {
            const int c = tid / 9, k = tid % 9;
            ws[c][k] = (co0 + c < Co) ? w[(((int64_t)(co0 + c)) * Ci + ci) * 9 + k] : 0.f;
        }
        __syncthreads();
        #pragma unroll
        for (int kh = 0; kh < 3; ++kh)
            #pragma unroll
            for (int kw = 0; kw < 3; ++kw) {
                const float v = xs[ty + kh][tx + kw];
                #pragma unroll
                for (int c = 0; c < CO_PER; ++c) acc[c] += v * ws[c][kh * 3 + kw];
            }
        __syncthreads();
    }
    const int oh = oh0 + ty, ow = ow0 + tx;
    if (oh < Ho && ow < Wo)
        #pragma unroll
        for (int c = 0; c < CO_PER; ++c)
            if (co0 + c < Co) y[(((int64_t)n * Co + co0 + c) * Ho + oh) * Wo + ow] = acc[c];
}

extern "C" void conv2d_launch(const float* x, const float* w, const float* bias, float* y,
                              int64_t N, int64_t Ci, int64_t H, int64_t W, int64_t Co, int64_t P, void* stream) {
    const int Ho = (int)(H + 2 * P - 2), Wo = (int)(W + 2 * P - 2), groups = (int)((Co + CO_PER - 1) / CO_PER);
    dim3 grid((Wo + TILE - 1) / TILE, (Ho + TILE - 1) / TILE, (unsigned)(N * groups)), block(TILE, TILE);
    conv3x3_tiled<<<grid, block, 0, (cudaStream_t)stream>>>(x, w, bias, y, (int)Ci, (int)H, (int)W, (int)Co, (int)P, Ho, Wo, groups);
}
