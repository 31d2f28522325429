// v2: vectorised passes (polynomial exp instead of libm expf), threads only when there is enough work.
#include <cstdint>
#include <cstring>

static inline float fast_exp(float x) {            // 2^(x log2 e), degree-6 polynomial for 2^f
    x = x < -87.f ? -87.f : (x > 88.f ? 88.f : x);
    float t = x * 1.4426950409f, fi = __builtin_floorf(t), f = t - fi;
    float p = 1.f + f * (0.6931472f + f * (0.2402265f + f * (0.05550411f + f * (0.009618129f + f * (0.001333355f + f * 0.0001540353f)))));
    int32_t bits = ((int32_t)fi + 127) << 23; float s; std::memcpy(&s, &bits, 4);
    return p * s;
}

static void softmax_row(const float* xr, float* yr, int64_t cols) {
    float m = xr[0];
    #pragma omp simd reduction(max:m)
    for (int64_t c = 0; c < cols; ++c) m = xr[c] > m ? xr[c] : m;
    float s = 0.f;
    #pragma omp simd reduction(+:s)
    for (int64_t c = 0; c < cols; ++c) { float e = fast_exp(xr[c] - m); yr[c] = e; s += e; }
    const float inv = 1.f / s;
    #pragma omp simd
    for (int64_t c = 0; c < cols; ++c) yr[c] *= inv;
}

extern "C" void softmax_launch(const float* x, float* y, int64_t rows, int64_t cols, void*) {
    #pragma omp parallel for schedule(static) if (rows * cols >= (1 << 17))
    for (int64_t r = 0; r < rows; ++r) softmax_row(x + r * cols, y + r * cols, cols);
}
