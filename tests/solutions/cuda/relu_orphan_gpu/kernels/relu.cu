#include <cstdint>
#include <cuda_runtime.h>
__global__ void relu_kernel(const float4* __restrict__ x, float4* __restrict__ y, int64_t n4) {
    for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < n4; i += (int64_t)gridDim.x * blockDim.x) {
        float4 v = x[i];
        v.x = fmaxf(v.x, 0.f); v.y = fmaxf(v.y, 0.f); v.z = fmaxf(v.z, 0.f); v.w = fmaxf(v.w, 0.f);
        y[i] = v;
    }
}
__global__ void relu_tail(const float* __restrict__ x, float* __restrict__ y, int64_t start, int64_t n) {
    int64_t i = start + blockIdx.x * (int64_t)blockDim.x + threadIdx.x;
    if (i < n) y[i] = fmaxf(x[i], 0.f);
}
extern "C" void relu_launch(const float* x, float* y, int64_t n, void* stream) {
    cudaStream_t s = (cudaStream_t)stream;
    int64_t n4 = n / 4;
    int blocks = (int)((n4 + 255) / 256); if (blocks > 132 * 32) blocks = 132 * 32; if (blocks < 1) blocks = 1;
    
    relu_kernel<<<blocks, 256, 0, s>>>((const float4*)x, (float4*)y, n4);
    if (n % 4) relu_tail<<<1, 4, 0, s>>>(x, y, n4 * 4, n);
}
