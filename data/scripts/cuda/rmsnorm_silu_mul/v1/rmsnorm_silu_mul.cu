// v1: one block per row: sum of squares with a shared-memory reduction, then normalise and gate.
#include <cstdint>
#include <cuda_runtime.h>

__global__ void rmsnorm_silu_mul_kernel(const float* x, const float* w, float* out, int64_t cols, float eps) {
    __shared__ float buf[256];
    const float* xr = x + blockIdx.x * cols; float* o = out + blockIdx.x * cols;
    float ss = 0.f;
    for (int64_t c = threadIdx.x; c < cols; c += blockDim.x) ss += xr[c] * xr[c];
    buf[threadIdx.x] = ss;
    __syncthreads();
    for (int k = blockDim.x / 2; k > 0; k >>= 1) {
        if (threadIdx.x < k) buf[threadIdx.x] += buf[threadIdx.x + k];
        __syncthreads();
    }
    const float inv = rsqrtf(buf[0] / cols + eps);
    for (int64_t c = threadIdx.x; c < cols; c += blockDim.x) {
        float y = xr[c] * inv;
        o[c] = y / (1.f + expf(-y)) * y;
    }
}

extern "C" void rmsnorm_silu_mul_launch(const float* x, const float* w, float* out, int64_t rows, int64_t cols,
                                        float eps, void* stream) {
    rmsnorm_silu_mul_kernel<<<rows, 256, 0, (cudaStream_t)stream>>>(x, w, out, cols, eps);
}
