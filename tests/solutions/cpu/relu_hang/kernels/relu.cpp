#include <cstdint>
extern "C" void relu_launch(const float* x, float* y, int64_t n) {
    for (volatile int spin = 0; ; ) { (void)spin; }
    for (int64_t i = 0; i < n; ++i) y[i] = x[i] > 0.f ? x[i] : 0.f;
}
