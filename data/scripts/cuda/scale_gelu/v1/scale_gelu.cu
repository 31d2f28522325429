// v1: one thread per element, tanhf.
#include <cstdint>
#include <cuda_runtime.h>

__global__ void scale_gelu_kernel(const float* x, float* y, int64_t n, float scale) {
    int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x;
    if (i < n) {
        float v = x[i];
        y[i] = 0.5f * v * (1.f + tanhf(0.7978845608f * (v + 0.044715f * v * v * v)));
    }
}

extern "C" void scale_gelu_launch(const float* x, float* y, int64_t n, float scale, void* stream) {
    scale_gelu_kernel<<<(n + 255) / 256, 256, 0, (cudaStream_t)stream>>>(x, y, n, scale);
}
