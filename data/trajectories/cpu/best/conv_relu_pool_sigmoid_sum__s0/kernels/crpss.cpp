// v2: fully fused. ReLU and max commute (max of ReLUs = ReLU of max), so per (n, pooled row) compute the two
// conv rows each channel needs with row-wise vectorised multiply-adds into a small buffer, pool them, apply
// ReLU + sigmoid (polynomial exp) and add into the output row. No (N, Co, Ho, Wo) intermediate.
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

extern "C" void crpss_launch(const float* x, const float* w, const float* bias, float* /*scratch, unused*/, float* out,
                             int64_t N, int64_t Ci, int64_t H, int64_t W, int64_t Co, void*) {
    const int64_t Wo = W - 2, Hp = (H - 2) / 2, Wp = Wo / 2;
    #pragma omp parallel for collapse(2) schedule(static) if (N * Hp * Co * Ci * Wo * 36 >= (1 << 22))
    for (int64_t n = 0; n < N; ++n)
        for (int64_t ph = 0; ph < Hp; ++ph) {
            std::vector<float> r0(Wo), r1(Wo);
            float* o = out + (n * Hp + ph) * Wp;
            for (int64_t pw = 0; pw < Wp; ++pw) o[pw] = 0.f;
            for (int64_t co = 0; co < Co; ++co) {
                for (int64_t j = 0; j < Wo; ++j) r0[j] = r1[j] = bias[co];
                for (int64_t ci = 0; ci < Ci; ++ci) {
                    const float* wp = w + (co * Ci + ci) * 9;
                    for (int64_t kh = 0; kh < 3; ++kh) {
                        const float* x0 = x + ((n * Ci + ci) * H + 2 * ph + kh) * W;
                        const float* x1 = x0 + W;
                        for (int64_t kw = 0; kw < 3; ++kw) {
                            const float wv = wp[kh * 3 + kw];
                            #pragma omp simd
                            for (int64_t j = 0; j < Wo; ++j) { r0[j] += wv * x0[j + kw]; r1[j] += wv * x1[j + kw]; }
                        }
                    }
                }
                #pragma omp simd
                for (int64_t pw = 0; pw < Wp; ++pw) {
                    float m = r0[2 * pw];
                    m = r0[2 * pw + 1] > m ? r0[2 * pw + 1] : m;
                    m = r1[2 * pw] > m ? r1[2 * pw] : m;
                    m = r1[2 * pw + 1] > m ? r1[2 * pw + 1] : m;
                    m = m > 0.f ? m : 0.f;
                    o[pw] += 1.f / (1.f + fast_exp(-m));
                }
            }
        }
}
