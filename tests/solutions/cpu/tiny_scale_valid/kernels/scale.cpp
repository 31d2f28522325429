#include <cstdint>
extern "C" void scale_launch(const float* x, float* y, int64_t n) {
    for (int64_t i = 0; i < n; ++i) y[i] = x[i] * 1e-4f;
}
