#include <cstdint>
#include <cuda_runtime.h>
__global__ void rmsnorm_silu_mul_kernel(const float* __restrict__ x, const float* __restrict__ w, float* __restrict__ out, int64_t H, float eps) {
    const float* xr = x + blockIdx.x * H; float* orow = out + blockIdx.x * H;
    float ss = 0.f;
    for (int64_t j = threadIdx.x; j < H; j += blockDim.x) { float v = xr[j]; ss += v * v; }
    __shared__ float red[32];
    for (int o = 16; o > 0; o >>= 1) ss += __shfl_xor_sync(0xffffffff, ss, o);
    if ((threadIdx.x & 31) == 0) red[threadIdx.x >> 5] = ss;
    __syncthreads();
    if (threadIdx.x < 32) {
        float t = threadIdx.x < (blockDim.x >> 5) ? red[threadIdx.x] : 0.f;
        for (int o = 16; o > 0; o >>= 1) t += __shfl_xor_sync(0xffffffff, t, o);
        if (threadIdx.x == 0) red[0] = t;
    }
    __syncthreads();
    float inv = rsqrtf(red[0] / (float)H + eps);
    for (int64_t j = threadIdx.x; j < H; j += blockDim.x) {
        float y = xr[j] * inv * w[j];
        orow[j] = y / (1.f + __expf(-y)) * y;
    }
}
extern "C" void rmsnorm_silu_mul_launch(const float* x, const float* w, float* out, int64_t rows, int64_t H, float eps, void* stream) {
    rmsnorm_silu_mul_kernel<<<(unsigned)rows, 512, 0, (cudaStream_t)stream>>>(x, w, out, H, eps);
}
