#include <cstdint>
// CPU kernel in CUDA Agent's layout: no torch headers here.
extern "C" void relu_launcher(float* out, const float* x, int64_t n) {
    for (int64_t i = 0; i < n; ++i) out[i] = x[i] > 0.f ? x[i] : 0.f;
}
