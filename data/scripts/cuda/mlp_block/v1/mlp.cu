// v1: a naive linear kernel y = x W^T + b (one thread per output), used for both projections.
#include <cstdint>
#include <cuda_runtime.h>

__global__ void linear_naive(const float* x, const float* W, const float* b, float* y, int64_t K, int64_t N) {
    const int64_t j = blockIdx.x * (int64_t)blockDim.x + threadIdx.x, i = blockIdx.y;
    if (j >= N) return;
    float s = b[j];
    for (int64_t k = 0; k < K; ++k) s += x[i * K + k] * W[j * K + k];
    y[i * N + j] = s;
}

extern "C" void linear_launch(const float* x, const float* W, const float* b, float* y,
                              int64_t M, int64_t K, int64_t N, void* stream) {
    linear_naive<<<dim3((unsigned)((N + 255) / 256), (unsigned)M), 256, 0, (cudaStream_t)stream>>>(x, W, b, y, K, N);
}
