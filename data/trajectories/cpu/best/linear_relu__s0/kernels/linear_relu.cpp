// v1: y[i, j] = relu(sum_k x[i, k] * W[k, j] + b[j]), one dot product per output.
#include <cstdint>

extern "C" void linear_relu_launch(const float* x, const float* W, const float* b, float* y,
                                   int64_t M, int64_t K, int64_t N, void*) {
    #pragma omp parallel for collapse(2)
    for (int64_t i = 0; i < M; ++i)
        for (int64_t j = 0; j < N; ++j) {
            float s = b[j];
            for (int64_t k = 0; k < K; ++k) s += x[i * K + k] * W[j * K + k];
            y[i * N + j] = s > 0.f ? s : 0.f;
        }
}
