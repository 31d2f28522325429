// v1: one thread per element.
#include <cstdint>
#include <cuda_runtime.h>

__global__ void relu_kernel(const float* x, float* y, int64_t n) {
    int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x;
    if (i < n) y[i] = x[i] > 0.f ? x[i] : 0.f;
}

extern "C" void relu_launch(const float* x, float* y, int64_t n, void* stream) {
    const int threads = 256;
    relu_kernel<<<(n + threads - 1) / threads, threads, 0, (cudaStream_t)stream>>>(x, y, n)
}
