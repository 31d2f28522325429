#include <cstdint>
static volatile int32_t kBig = INT32_MAX;   // read at run time, so the compiler cannot fold the round trip away
extern "C" void relu_launch(const float* x, float* y, int64_t n) {
    const int32_t big = kBig;
    for (int64_t i = 0; i < n; ++i) {
        int32_t k = (int32_t)i + big;   // overflows for every i >= 1
        k -= big;                       // ... and wraps back to i
        y[k] = x[k] > 0.f ? x[k] : 0.f;
    }
}
