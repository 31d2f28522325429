// v1: s = bmm(a, b) * scale into a scratch buffer, softmax over the last dim, then the mean.
#include <cmath>
#include <cstdint>

extern "C" void mssm_launch(const float* a, const float* b, float* s, float* out,
                            int64_t batch, int64_t M, int64_t K, int64_t N, float scale, void*) {
    #pragma omp parallel for
    for (int64_t p = 0; p < batch; ++p) {
        const float* ap = a + p * M * K; const float* bp = b + p * K * N; float* sp = s + p * M * N;
        for (int64_t i = 0; i < M; ++i) {
            float* row = sp + i * N;
            for (int64_t j = 0; j < N; ++j) {
                float acc = 0.f;
                for (int64_t k = 0; k < K; ++k) acc += ap[i * K + k] * bp[k * N + j];
                row[j] = acc * scale;
            }
            float m = row[0], z = 0.f;
            for (int64_t j = 1; j < N; ++j) m = row[j] > m ? row[j] : m;
            for (int64_t j = 0; j < N; ++j) { row[j] = std::exp(row[j] - m); z += row[j]; }
            for (int64_t j = 0; j < N; ++j) row[j] /= z;
        }
        // mean of the softmax rows
        for (int64_t i = 0; i < M; ++i) {
            float acc = 0.f;
            for (int64_t j = 0; j < N; ++j) acc += sp[i * N + j];
            out[p * M + i] = acc / N;
        }
    }
}
