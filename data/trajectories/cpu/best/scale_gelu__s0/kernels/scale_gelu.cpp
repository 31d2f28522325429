// v2: 0.5 v (1 + tanh(u)) == v / (1 + exp(-2u)). std::tanh does not vectorise; a polynomial exp does.
// Serial and SIMD below a size threshold (thread start-up dominates small tensors), OpenMP above it.
#include <cstdint>
#include <cstring>

static inline float fast_exp(float x) {            // 2^(x log2 e), degree-6 polynomial for 2^f: rel. error ~2e-6
    x = x < -87.f ? -87.f : (x > 88.f ? 88.f : x);
    float t = x * 1.4426950409f, fi = __builtin_floorf(t), f = t - fi;
    float p = 1.f + f * (0.6931472f + f * (0.2402265f + f * (0.05550411f + f * (0.009618129f + f * (0.001333355f + f * 0.0001540353f)))));
    int32_t bits = ((int32_t)fi + 127) << 23; float s; std::memcpy(&s, &bits, 4);
    return p * s;
}

static void gelu_range(const float* x, float* y, int64_t lo, int64_t hi, float scale) {
    const float k2 = 2.f * 0.7978845608f;
    #pragma omp simd
    for (int64_t i = lo; i < hi; ++i) {
        float v = x[i] * scale;
        y[i] = v / (1.f + fast_exp(-k2 * (v + 0.044715f * v * v * v)));
    }
}

extern "C" void scale_gelu_launch(const float* x, float* y, int64_t n, float scale, void*) {
    if (n < (1 << 17)) { gelu_range(x, y, 0, n, scale); return; }
    const int64_t chunk = 1 << 14, nc = (n + chunk - 1) / chunk;
    #pragma omp parallel for schedule(static)
    for (int64_t c = 0; c < nc; ++c) gelu_range(x, y, c * chunk, (c + 1) * chunk < n ? (c + 1) * chunk : n, scale);
}
