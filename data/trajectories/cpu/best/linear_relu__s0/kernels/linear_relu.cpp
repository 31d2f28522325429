// v2: register-blocked GEMM. Each task computes a 4 x 16 tile of y: the inner loop over k broadcasts four x
// values and streams 16 contiguous floats of W^T (packed once per call so every access is unit-stride).
// Bias and ReLU are fused into the tile's store.
#include <cstdint>
#include <vector>

extern "C" void linear_relu_launch(const float* x, const float* W, const float* b, float* y,
                                   int64_t M, int64_t K, int64_t N, void*) {
    std::vector<float> Wt(K * N);                  // Wt[k, j] = W[j, k]
    for (int64_t j = 0; j < N; ++j)
        for (int64_t k = 0; k < K; ++k) Wt[k * N + j] = W[j * K + k];
    const int64_t MB = 4, NB = 16;
    const int64_t tiles_m = (M + MB - 1) / MB, tiles_n = (N + NB - 1) / NB;
    #pragma omp parallel for schedule(static) if (M * N * K >= (1 << 22))
    for (int64_t t = 0; t < tiles_m * tiles_n; ++t) {
        const int64_t i0 = (t / tiles_n) * MB, j0 = (t % tiles_n) * NB;
        const int64_t mi = M - i0 < MB ? M - i0 : MB, nj = N - j0 < NB ? N - j0 : NB;
        float acc[MB][NB] = {};
        for (int64_t k = 0; k < K; ++k) {
            const float* wk = &Wt[k * N + j0];
            for (int64_t ii = 0; ii < mi; ++ii) {
                const float xv = x[(i0 + ii) * K + k];
                #pragma omp simd
                for (int64_t jj = 0; jj < NB; ++jj) acc[ii][jj] += xv * (jj < nj ? wk[jj] : 0.f);
            }
        }
        for (int64_t ii = 0; ii < mi; ++ii)
            for (int64_t jj = 0; jj < nj; ++jj) {
                float s = acc[ii][jj] + b[j0 + jj];
                y[(i0 + ii) * N + j0 + jj] = s > 0.f ? s : 0.f;
            }
    }
}
