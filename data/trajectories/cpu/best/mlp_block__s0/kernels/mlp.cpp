// v2: the whole block in one call. Per token row: h = gelu(x W1^T + b1) into a small buffer (exact GELU with a
// vectorisable erf), then y = x + h W2^T + b2. Both weights are packed transposed once per call so every inner
// loop is a contiguous multiply-add.
#include <cmath>
#include <cstdint>
#include <cstring>
#include <vector>

static inline float fast_exp(float x) {
    x = x < -87.f ? -87.f : (x > 88.f ? 88.f : x);
    float t = x * 1.4426950409f, fi = __builtin_floorf(t), f = t - fi;
    float p = 1.f + f * (0.6931472f + f * (0.2402265f + f * (0.05550411f + f * (0.009618129f + f * (0.001333355f + f * 0.0001540353f)))));
    int32_t bits = ((int32_t)fi + 127) << 23; float s; std::memcpy(&s, &bits, 4);
    return p * s;
}
static inline float fast_erf(float x) {            // Abramowitz & Stegun 7.1.26
    float a = x < 0.f ? -x : x, t = 1.f / (1.f + 0.3275911f * a);
    float r = 1.f - t * (0.254829592f + t * (-0.284496736f + t * (1.421413741f + t * (-1.453152027f + t * 1.061405429f)))) * fast_exp(-a * a);
    return x < 0.f ? -r : r;
}
static std::vector<float> transpose(const float* W, int64_t rows, int64_t cols) {
    std::vector<float> t(rows * cols);
    for (int64_t r = 0; r < rows; ++r) for (int64_t c = 0; c < cols; ++c) t[c * rows + r] = W[r * cols + c];
    return t;
}

extern "C" void mlp_launch(const float* x, const float* W1, const float* b1, const float* W2, const float* b2,
                           float* y, int64_t M, int64_t C, int64_t F, void*) {
    std::vector<float> W1t = transpose(W1, F, C), W2t = transpose(W2, C, F);   // (C, F) and (F, C)
    #pragma omp parallel for schedule(static) if (M * C * F >= (1 << 22))
    for (int64_t i = 0; i < M; ++i) {
        std::vector<float> h(b1, b1 + F);
        const float* xi = x + i * C;
        for (int64_t k = 0; k < C; ++k) {
            const float xv = xi[k]; const float* w = &W1t[k * F];
            #pragma omp simd
            for (int64_t j = 0; j < F; ++j) h[j] += xv * w[j];
        }
        #pragma omp simd
        for (int64_t j = 0; j < F; ++j) h[j] = 0.5f * h[j] * (1.f + fast_erf(h[j] * 0.70710678f));
        float* yi = y + i * C;
        #pragma omp simd
        for (int64_t c = 0; c < C; ++c) yi[c] = xi[c] + b2[c];
        for (int64_t j = 0; j < F; ++j) {
            const float hv = h[j]; const float* w = &W2t[j * C];
            #pragma omp simd
            for (int64_t c = 0; c < C; ++c) yi[c] += hv * w[c];
        }
    }
}
