#include <cstdint>
#include <cublas_v2.h>
#include <cuda_runtime.h>
__global__ void bias_relu(float* y, const float* b, int64_t M, int64_t N) {
    int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x;
    if (i < M * N) { float v = y[i] + b[i % N]; y[i] = v > 0.f ? v : 0.f; }
}
extern "C" void linear_relu_launch(const float* x, const float* w, const float* b, float* y, int64_t M, int64_t K, int64_t N, void* stream) {
    static cublasHandle_t h = nullptr;
    if (!h) { cublasCreate(&h); cublasSetMathMode(h, CUBLAS_DEFAULT_MATH); }
    cublasSetStream(h, (cudaStream_t)stream);
    const float one = 1.f, zero = 0.f;
    // row-major Y[M,N] = X[M,K] W[N,K]^T  ==  column-major Y^T = W X^T
    cublasSgemm(h, CUBLAS_OP_T, CUBLAS_OP_N, (int)N, (int)M, (int)K, &one, w, (int)K, x, (int)K, &zero, y, (int)N);
    bias_relu<<<(unsigned)((M * N + 255) / 256), 256, 0, (cudaStream_t)stream>>>(y, b, M, N);
}
