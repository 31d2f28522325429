// v1: one block per row; tree reductions in shared memory for the mean and the variance.
#include <cstdint>
#include <cuda_runtime.h>

__global__ void layernorm_kernel(const float* x, const float* w, const float* b, float* y, int64_t cols, float eps) {
    __shared__ float buf[256];
    const float* xr = x + blockIdx.x * cols; float* yr = y + blockIdx.x * cols;
    float s = 0.f;
    for (int64_t c = threadIdx.x; c < cols; c += blockDim.x) s += xr[c];
    buf[threadIdx.x] = s;
    __syncthreads();
    for (int o = blockDim.x / 2; o > 1; o >>= 1) {
        if (threadIdx.x < o) buf[threadIdx.x] += buf[threadIdx.x + o];
        __syncthreads();
    }
    const float mean = buf[0] / cols;
    __syncthreads();
    float v = 0.f;
    for (int64_t c = threadIdx.x; c < cols; c += blockDim.x) { float d = xr[c] - mean; v += d * d; }
    buf[threadIdx.x] = v;
    __syncthreads();
    for (int o = blockDim.x / 2; o > 1; o >>= 1) {
        if (threadIdx.x < o) buf[threadIdx.x] += buf[threadIdx.x + o];
        __syncthreads();
    }
    const float inv = rsqrtf(buf[0] / cols + eps);
    for (int64_t c = threadIdx.x; c < cols; c += blockDim.x) yr[c] = (xr[c] - mean) * inv * w[c] + b[c];
}

extern "C" void layernorm_launch(const float* x, const float* w, const float* b, float* y,
                                 int64_t rows, int64_t cols, float eps, void* stream) {
    layernorm_kernel<<<rows, 256, 0, (cudaStream_t)stream>>>(x, w, b, y, cols, eps);
}
