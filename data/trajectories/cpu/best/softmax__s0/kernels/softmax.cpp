// v1: three passes per row (max, exp-sum, normalise), rows in parallel.
#include <cmath>
#include <cstdint>

extern "C" void softmax_launch(const float* x, float* y, int64_t rows, int64_t cols, void*) {
    #pragma omp parallel for
    for (int64_t r = 0; r < rows; ++r) {
        const float* xr = x + r * cols; float* yr = y + r * cols;
        float m = xr[0];
        for (int64_t c = 1; c < cols; ++c) m = xr[c] > m ? xr[c] : m;
        float s = 0.f;
        for (int64_t c = 0; c < cols; ++c) { yr[c] = std::exp(xr[c] - m); s += yr[c]; }
        const float inv = 1.f / s;
        for (int64_t c = 0; c < cols; ++c) yr[c] *= inv;
    }
}
