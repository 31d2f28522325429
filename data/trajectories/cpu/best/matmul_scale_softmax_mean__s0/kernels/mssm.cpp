// v2: no (B, M, N) scratch round trip. Per batch: one score row at a time in a stack buffer, i-k-j so the
// inner loop streams rows of b, polynomial exp, and the normalised row is added straight into the mean.
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

extern "C" void mssm_launch(const float* a, const float* b, float* /*scratch, unused*/, float* out,
                            int64_t batch, int64_t M, int64_t K, int64_t N, float scale, void*) {
    #pragma omp parallel for schedule(static) if (batch * M * N * K >= (1 << 22))
    for (int64_t p = 0; p < batch; ++p) {
        const float* ap = a + p * M * K; const float* bp = b + p * K * N; float* op = out + p * N;
        std::vector<float> row(N);
        for (int64_t j = 0; j < N; ++j) op[j] = 0.f;
        for (int64_t i = 0; i < M; ++i) {
            float* r = row.data();
            for (int64_t j = 0; j < N; ++j) r[j] = 0.f;
            for (int64_t k = 0; k < K; ++k) {
                const float av = ap[i * K + k] * scale; const float* bk = bp + k * N;
                #pragma omp simd
                for (int64_t j = 0; j < N; ++j) r[j] += av * bk[j];
            }
            float m = r[0];
            #pragma omp simd reduction(max:m)
            for (int64_t j = 0; j < N; ++j) m = r[j] > m ? r[j] : m;
            float z = 0.f;
            #pragma omp simd reduction(+:z)
            for (int64_t j = 0; j < N; ++j) { r[j] = fast_exp(r[j] - m); z += r[j]; }
            const float w = 1.f / (z * M);
            #pragma omp simd
            for (int64_t j = 0; j < N; ++j) op[j] += r[j] * w;
        }
    }
}
