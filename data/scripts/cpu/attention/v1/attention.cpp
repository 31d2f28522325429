// v1: QKV projection, scaled dot-product attention per (batch, head, query), output projection.
#include <cmath>
#include <cstdint>
#include <vector>

static void linear(const float* x, const float* W, const float* b, float* y, int64_t M, int64_t K, int64_t N) {
    #pragma omp parallel for
    for (int64_t i = 0; i < M; ++i)
        for (int64_t j = 0; j < N; ++j) {
            float s = b[j];
            for (int64_t k = 0; k < K; ++k) s += x[i * K + k] * W[j * K + k];
            y[i * N + j] = s;
        }
}

extern "C" void attention_launch(const float* x, const float* Wqkv, const float* bqkv, const float* Wo, const float* bo,
                                 float* qkv, float* ctx, float* y, int64_t B, int64_t T, int64_t C, int64_t H, void*) {
    const int64_t D = C / H;
    const float scale = 1.f / std::sqrt((float)D);
    linear(x, Wqkv, bqkv, qkv, B * T, C, 3 * C);                 // qkv: (B, T, 3C) = [q | k | v]
    #pragma omp parallel for collapse(2)
    for (int64_t b = 0; b < B; ++b)
        for (int64_t h = 0; h < H; ++h) {
            std::vector<float> p(T);
            for (int64_t t = 0; t < T; ++t) {
                const float* q = qkv + (b * T + t) * 3 * C + h * D;
                float m = -INFINITY;
                for (int64_t s = 0; s < T; ++s) {
                    const float* k = qkv + (b * T + s) * 3 * C + C + h * D;
                    float dot = 0.f;
                    for (int64_t d = 0; d < D; ++d) dot += q[d] * k[d];
                    p[s] = dot * scale; m = p[s] > m ? p[s] : m;
                }
                float z = 0.f;
                for (int64_t s = 0; s < T; ++s) { p[s] = std::exp(p[s] - m); z += p[s]; }
                float* o = ctx + (b * T + t) * C + h * D;
                for (int64_t d = 0; d < D; ++d) o[d] = 0.f;
                for (int64_t s = 0; s < T; ++s) {
                    const float* v = qkv + (b * T + s) * 3 * C + 2 * C + h * D;
                    for (int64_t d = 0; d < D; ++d) o[d] += p[s] / z * v[d];
                }
            }
        }
    linear(ctx, Wo, bo, y, B * T, C, C);
}
