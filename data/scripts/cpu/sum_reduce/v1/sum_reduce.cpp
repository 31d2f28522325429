// v1: y[b, j] = sum_i x[b, i, j], one output element per iteration.
#include <cstdint>

extern "C" void sum_dim1_launch(const float* x, float* y, int64_t B, int64_t D1, int64_t D2, void*) {
    #pragma omp parallel for collapse(2)
    for (int64_t b = 0; b < B; ++b)
        for (int64_t j = 0; j < D2; ++j) {
            float s = 0.f;
            for (int64_t i = 0; i < D1; ++i) s += x[(b * D1 + i) * D2 + j];
            y[b * D2 + j] = s;
        }
}
