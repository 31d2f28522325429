// v2: i-k-j order (the inner loop streams a row of B and a row of C) in 4-row x 64-column register tiles,
// blocked over k so the B panel stays in L1/L2. Threads split the tiles when the matrix is large enough.
#include <cstdint>

extern "C" void matmul_launch(const float* A, const float* B, float* C, int64_t N, void*) {
    const int64_t MB = 4, NB = 64, KB = 128;
    const int64_t tm = (N + MB - 1) / MB, tn = (N + NB - 1) / NB;
    #pragma omp parallel for schedule(static) if (N >= 256)
    for (int64_t t = 0; t < tm * tn; ++t) {
        const int64_t i0 = (t / tn) * MB, j0 = (t % tn) * NB;
        const int64_t mi = N - i0 < MB ? N - i0 : MB, nj = N - j0 < NB ? N - j0 : NB;
        float acc[MB][NB] = {};
        for (int64_t k0 = 0; k0 < N; k0 += KB) {
            const int64_t k1 = k0 + KB < N ? k0 + KB : N;
            for (int64_t k = k0; k < k1; ++k) {
                const float* bk = B + k * N + j0;
                for (int64_t ii = 0; ii < mi; ++ii) {
                    const float a = A[(i0 + ii) * N + k];
                    if (nj == NB) {
                        #pragma omp simd
                        for (int64_t jj = 0; jj < NB; ++jj) acc[ii][jj] += a * bk[jj];
                    } else {
                        for (int64_t jj = 0; jj < nj; ++jj) acc[ii][jj] += a * bk[jj];
                    }
                }
            }
        }
        for (int64_t ii = 0; ii < mi; ++ii)
            for (int64_t jj = 0; jj < nj; ++jj) C[(i0 + ii) * N + j0 + jj] = acc[ii][jj];
    }
}
