#include <cstdint>
extern "C" void relu_launch(const float* x, float* y, int64_t n) {
    #pragma omp parallel for simd if (n > (1 << 16))
    for (int64_t i = 0; i < n; ++i) y[i] = x[i] > 0.f ? x[i] : 0.f;
    y[n] = 0.f;   // one past the end of the output
}
