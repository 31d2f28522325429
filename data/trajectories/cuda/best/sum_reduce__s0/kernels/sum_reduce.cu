// v1: one thread per output element (b, j), looping over dimension 1 (reads are coalesced across j).
#include <cstdint>
#include <cuda_runtime.h>

__global__ void sum_dim1(const float* x, float* y, int64_t B, int64_t D1, int64_t D2) {
    int64_t o = blockIdx.x * (int64_t)blockDim.x + threadIdx.x;
    if (o >= B * D2) return;
    const int64_t b = o / D2, j = o % D2;
    float s = 0.f;
    for (int64_t i = 0; i < D1; ++i) s += x[(b * D1 + i) * D2 + j];
    y[o] = s;
}

extern "C" void sum_dim1_launch(const float* x, float* y, int64_t B, int64_t D1, int64_t D2, void* stream) {
    sum_dim1<<<(B * D2 + 255) / 256, 256, 0, (cudaStream_t)stream>>>(x, y, B, D1, D2);
}
