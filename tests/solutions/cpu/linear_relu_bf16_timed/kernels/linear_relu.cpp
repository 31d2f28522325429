#include <cstdint>
#include <cstring>
#define R(v) (v)
extern "C" void linear_relu_launch(const float* x, const float* w, const float* b, float* y, int64_t M, int64_t K, int64_t N) {
    #pragma omp parallel for
    for (int64_t i = 0; i < M; ++i)
        for (int64_t j = 0; j < N; ++j) {
            float acc = b[j];
            for (int64_t k = 0; k < K; ++k) acc += R(x[i * K + k]) * R(w[j * K + k]);
            y[i * N + j] = acc > 0.f ? acc : 0.f;
        }
}
