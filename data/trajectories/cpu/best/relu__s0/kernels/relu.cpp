// v2: the tensor is small (tens of thousands of floats): spawning threads costs more than the work.
// Run serially below a size threshold, vectorised with AVX (branch-free max), in parallel above it.
#include <cstdint>
#include <immintrin.h>

static void relu_range(const float* x, float* y, int64_t lo, int64_t hi) {
    int64_t i = lo;
#ifdef __AVX__
    const __m256 zero = _mm256_setzero_ps();
    for (; i + 8 <= hi; i += 8) _mm256_storeu_ps(y + i, _mm256_max_ps(_mm256_loadu_ps(x + i), zero));
#endif
    for (; i < hi; ++i) y[i] = x[i] > 0.f ? x[i] : 0.f;
}

extern "C" void relu_launch(const float* x, float* y, int64_t n, void*) {
    const int64_t serial_below = 1 << 18;
    if (n < serial_below) { relu_range(x, y, 0, n); return; }
    const int64_t chunk = 1 << 14;
    #pragma omp parallel for schedule(static)
    for (int64_t c = 0; c < (n + chunk - 1) / chunk; ++c) relu_range(x, y, c * chunk, c * chunk + chunk < n ? c * chunk + chunk : n);
}
