// v1: C = A @ B for square N x N matrices, the textbook i-j-k loop.
#include <cstdint>

extern "C" void matmul_kernel(const float* A, const float* B, float* C, int64_t N, void*) {
    #pragma omp parallel for
    for (int64_t i = 0; i < N; ++i)
        for (int64_t j = 0; j < N; ++j) {
            float s = 0.f;
            for (int64_t k = 0; k < N; ++k) s += A[i * N + k] * B[k * N + j];
            C[i * N + j] = s;
        }
}
