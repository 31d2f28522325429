#include <cmath>
#include <cstdint>
extern "C" void relu_launch(const float* x, float* y, int64_t n) {
    #pragma omp parallel for if (n > (1 << 16))
    for (int64_t i = 0; i < n; ++i) {
        const float prev = y[i];          // never written: whatever the allocator left there
        const float v = x[i];
        y[i] = prev > 0.f ? std::fmax(v, 0.f) : (v > 0.f ? v : 0.f);
    }
}
