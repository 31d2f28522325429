// v2: one pass for the statistics (sum and sum of squares together, float4 loads, warp shuffles), the row kept in
// registers for the normalise pass when it fits (cols <= 4096 with 256 threads), so x is read from DRAM once.
#include <cstdint>
#include <cuda_runtime.h>

__device__ __forceinline__ float2 warp_sum2(float2 v) {
    for (int o = 16; o > 0; o >>= 1) { v.x += __shfl_xor_sync(0xffffffff, v.x, o); v.y += __shfl_xor_sync(0xffffffff, v.y, o); }
    return v;
}

template <int PER>   // float4s per thread kept in registers
__global__ void layernorm_regs(const float4* __restrict__ x, const float4* __restrict__ w, const float4* __restrict__ b,
                               float4* __restrict__ y, int cols4, float eps) {
    const float4* xr = x + (int64_t)blockIdx.x * cols4; float4* yr = y + (int64_t)blockIdx.x * cols4;
    float4 v[PER]; float2 acc = make_float2(0.f, 0.f);
    #pragma unroll
    for (int k = 0; k < PER; ++k) {
        int c = threadIdx.x + k * blockDim.x;
        v[k] = c < cols4 ? xr[c] : make_float4(0.f, 0.f, 0.f, 0.f);
        acc.x += v[k].x + v[k].y + v[k].z + v[k].w;
        acc.y += v[k].x * v[k].x + v[k].y * v[k].y + v[k].z * v[k].z + v[k].w * v[k].w;
    }
    acc = warp_sum2(acc);
    __shared__ float2 part[32];
    if (threadIdx.x % 32 == 0) part[threadIdx.x / 32] = acc;
    __syncthreads();
    if (threadIdx.x < 32) {
        acc = threadIdx.x < blockDim.x / 32 ? part[threadIdx.x] : make_float2(0.f, 0.f);
        acc = warp_sum2(acc);
        if (threadIdx.x == 0) part[0] = acc;
    }
    __syncthreads();
    const float n = cols4 * 4.f, mean = part[0].x / n, inv = rsqrtf(fmaxf(part[0].y / n - mean * mean, 0.f) + eps);
    #pragma unroll
    for (int k = 0; k < PER; ++k) {
        int c = threadIdx.x + k * blockDim.x;
        if (c < cols4) {
            float4 ww = w[c], bb = b[c], o;
            o.x = (v[k].x - mean) * inv * ww.x + bb.x; o.y = (v[k].y - mean) * inv * ww.y + bb.y;
            o.z = (v[k].z - mean) * inv * ww.z + bb.z; o.w = (v[k].w - mean) * inv * ww.w + bb.w;
            yr[c] = o;
        }
    }
}

__global__ void layernorm_generic(const float* x, const float* w, const float* b, float* y, int64_t cols, float eps) {
    const float* xr = x + blockIdx.x * cols; float* yr = y + blockIdx.x * cols;
    float2 acc = make_float2(0.f, 0.f);
    for (int64_t c = threadIdx.x; c < cols; c += blockDim.x) { acc.x += xr[c]; acc.y += xr[c] * xr[c]; }
    acc = warp_sum2(acc);
    __shared__ float2 part[32];
    if (threadIdx.x % 32 == 0) part[threadIdx.x / 32] = acc;
    __syncthreads();
    if (threadIdx.x < 32) {
        acc = threadIdx.x < blockDim.x / 32 ? part[threadIdx.x] : make_float2(0.f, 0.f);
        acc = warp_sum2(acc);
        if (threadIdx.x == 0) part[0] = acc;
    }
    __syncthreads();
    const float mean = part[0].x / cols, inv = rsqrtf(fmaxf(part[0].y / cols - mean * mean, 0.f) + eps);
    for (int64_t c = threadIdx.x; c < cols; c += blockDim.x) yr[c] = (xr[c] - mean) * inv * w[c] + b[c];
}

extern "C" void layernorm_launch(const float* x, const float* w, const float* b, float* y,
                                 int64_t rows, int64_t cols, float eps, void* stream) {
    cudaStream_t s = (cudaStream_t)stream;
    const bool aligned = ((reinterpret_cast<uintptr_t>(x) | reinterpret_cast<uintptr_t>(y) | reinterpret_cast<uintptr_t>(w) |
                           reinterpret_cast<uintptr_t>(b)) % 16 == 0) && cols % 4 == 0;
    if (aligned && cols <= 256 * 4 * 4)
        layernorm_regs<4><<<rows, 256, 0, s>>>((const float4*)x, (const float4*)w, (const float4*)b, (float4*)y, (int)(cols / 4), eps);
    else
        layernorm_generic<<<rows, 256, 0, s>>>(x, w, b, y, cols, eps);
}
