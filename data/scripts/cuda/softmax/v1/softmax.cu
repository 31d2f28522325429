// v1: one thread per row: three passes over the row.
#include <cstdint>
#include <cuda_runtime.h>

__global__ void softmax_rows(const float* x, float* y, int64_t rows, int64_t cols) {
    int64_t r = blockIdx.x * (int64_t)blockDim.x + threadIdx.x;
    if (r >= rows) return;
    const float* xr = x + r * cols; float* yr = y + r * cols;
    float m = -INFINITY;
    for (int64_t c = 0; c < cols; ++c) m = fmaxf(m, xr[c]);
    float s = 0.f;
    for (int64_t c = 0; c < cols; ++c) { float e = expf(xr[c] - m); yr[c] = e; s += e; }
    for (int64_t c = 0; c < cols; ++c) yr[c] /= s;
}

extern "C" void softmax_launch(const float* x, float* y, int64_t rows, int64_t cols, void* stream) {
    softmax_rows<<<(rows + 127) / 128, 128, 0, (cudaStream_t)stream>>>(x, y, rows, cols);
}
