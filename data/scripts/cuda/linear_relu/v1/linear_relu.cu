// v1: one thread per output element: a dot product of a row of x and a row of W, bias, ReLU.
#include <cstdint>
#include <cuda_runtime.h>

__global__ void linear_relu_naive(const float* x, const float* W, const float* b, float* y, int64_t M, int64_t K, int64_t N) {
    const int64_t j = blockIdx.x * (int64_t)blockDim.x + threadIdx.x, i = blockIdx.y;
    if (j >= N) return;
    float s = b[j];
    for (int64_t k = 0; k < K; ++k) s += x[i * K + k] * W[k * N + j];
    y[i * N + j] = fmaxf(s, 0.f);
}

extern "C" void linear_relu_launch(const float* x, const float* W, const float* b, float* y,
                                   int64_t M, int64_t K, int64_t N, void* stream) {
    dim3 grid((unsigned)((N + 255) / 256), (unsigned)M);
    linear_relu_naive<<<grid, 256, 0, (cudaStream_t)stream>>>(x, W, b, y, M, K, N);
}
