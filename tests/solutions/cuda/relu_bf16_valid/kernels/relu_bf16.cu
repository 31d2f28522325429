// ReLU on bfloat16 values held as their raw 16 bits: a set sign bit (a negative number, or -0) becomes +0.
#include <cstdint>
#include <cuda_runtime.h>
__global__ void relu_bf16_kernel(const uint16_t* __restrict__ x, uint16_t* __restrict__ y, int64_t n) {
    for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < n; i += (int64_t)gridDim.x * blockDim.x)
        y[i] = (x[i] & 0x8000u) ? uint16_t(0) : x[i];
}
extern "C" void relu_bf16_launch(const uint16_t* x, uint16_t* y, int64_t n, void* stream) {
    int blocks = (int)((n + 255) / 256); if (blocks > 132 * 32) blocks = 132 * 32; if (blocks < 1) blocks = 1;
    relu_bf16_kernel<<<blocks, 256, 0, (cudaStream_t)stream>>>(x, y, n);
}
