// v1: GELU (tanh approximation) with std::tanh, one OpenMP loop.
#include <cmath>
#include <cstdint>

extern "C" void scale_gelu_launch(const float* x, float* y, int64_t n, float scale, void*) {
    const float k = 0.7978845608f;  // sqrt(2 / pi)
    #pragma omp parallel for
    for (int64_t i = 0; i < n; ++i) {
        float v = x[i];
        y[i] = 0.5f * v * (1.f + std::tanh(k * (v + 0.044715f * v * v * v)));
    }
}
