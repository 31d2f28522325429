// ReLU on bfloat16 values held as their raw 16 bits: a set sign bit (a negative number, or -0) becomes +0.
#include <cstdint>
extern "C" void relu_bf16_launch(const uint16_t* x, uint16_t* y, int64_t n) {
    #pragma omp parallel for simd if (n > (1 << 16))
    for (int64_t i = 0; i < n; ++i) y[i] = (x[i] & 0x8000u) ? uint16_t(0) : x[i];
}
