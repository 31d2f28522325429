// v1: one thread per element of C, reading A and B straight from global memory.
#include <cstdint>
#include <cuda_runtime.h>

__global__ void matmul_naive(const float* A, const float* B, float* C, int64_t N) {
    const int64_t j = blockIdx.x * (int64_t)blockDim.x + threadIdx.x, i = blockIdx.y * (int64_t)blockDim.y + threadIdx.y;
    if (i >= N || j >= N) return;
    float s = 0.f;
    for (int64_t k = 0; k < N; ++k) s += A[i * N + k] * B[k * N + j];
    C[i * N + j] = s;
}

extern "C" void matmul_kernel(const float* A, const float* B, float* C, int64_t N, void* stream) {
    dim3 block(16, 16), grid((unsigned)((N + 15) / 16), (unsigned)((N + 15) / 16));
    matmul_naive<<<grid, block, 0, (cudaStream_t)stream>>>(A, B, C, N);
}
