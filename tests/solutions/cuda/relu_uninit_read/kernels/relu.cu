#include <cstdint>
#include <cuda_runtime.h>
__global__ void relu_reads_output(const float* __restrict__ x, float* __restrict__ y, int64_t n) {
    int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x;
    if (i < n) {
        const float prev = y[i];          // never written: whatever the allocator left there
        const float v = x[i];
        y[i] = prev > 0.f ? fmaxf(v, 0.f) : (v > 0.f ? v : 0.f);
    }
}
extern "C" void relu_launch(const float* x, float* y, int64_t n, void* stream) {
    int blocks = (int)((n + 255) / 256);
    relu_reads_output<<<blocks, 256, 0, (cudaStream_t)stream>>>(x, y, n);
}
