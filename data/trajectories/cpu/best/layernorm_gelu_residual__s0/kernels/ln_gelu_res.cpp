// v1: LayerNorm, exact GELU (erf) and the residual, one row per iteration.
#include <cmath>
#include <cstdint>

extern "C" void ln_gelu_res_launch(const float* x, const float* w, const float* b, float* y,
                                   int64_t rows, int64_t cols, float eps, void*) {
    #pragma omp parallel for
    for (int64_t r = 0; r < rows; ++r) {
        const float* xr = x + r * cols; float* yr = y + r * cols;
        float mean = 0.f, var = 0.f;
        for (int64_t c = 0; c < cols; ++c) mean += xr[c];
        mean /= cols;
        for (int64_t c = 0; c < cols; ++c) var += (xr[c] - mean) * (xr[c] - mean);
        const float inv = 1.f / std::sqrt(var / cols + eps);
        for (int64_t c = 0; c < cols; ++c) {
            float n = (xr[c] - mean) * inv * w[c] + b[c];
            yr[c] = xr[c] + 0.5f * n * (1.f + std::erf(n * 0.70710678f));
        }
    }
}
