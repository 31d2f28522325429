// v1: conv 3x3 (no padding) + ReLU into a scratch buffer, then 2x2 max-pool, sigmoid and the channel sum.
#include <cmath>
#include <cstdint>

extern "C" void crpss_launch(const float* x, const float* w, const float* bias, float* conv, float* out,
                             int64_t N, int64_t Ci, int64_t H, int64_t W, int64_t Co, void*) {
    const int64_t Ho = H - 2, Wo = W - 2, Hp = Ho / 2, Wp = Wo / 2;
    #pragma omp parallel for collapse(2)
    for (int64_t n = 0; n < N; ++n)
        for (int64_t co = 0; co < Co; ++co)
            for (int64_t oh = 0; oh < Ho; ++oh)
                for (int64_t ow = 0; ow < Wo; ++ow) {
                    float s = bias[co];
                    for (int64_t ci = 0; ci < Ci; ++ci)
                        for (int64_t kh = 0; kh < 3; ++kh)
                            for (int64_t kw = 0; kw < 3; ++kw)
                                s += x[((n * Ci + ci) * H + oh + kh) * W + ow + kw] * w[((co * Ci + ci) * 3 + kh) * 3 + kw];
                    conv[((n * Co + co) * Ho + oh) * Wo + ow] = s > 0.f ? s : 0.f;
                }
    #pragma omp parallel for collapse(2)
    for (int64_t n = 0; n < N; ++n)
        for (int64_t ph = 0; ph < Hp; ++ph)
            for (int64_t pw = 0; pw < Wp; ++pw) {
                float acc = 0.f;
                for (int64_t co = 0; co < Co; ++co) {
                    const float* c = conv + (n * Co + co) * Ho * Wo;
                    float m = c[(2 * ph) * Wo + 2 * pw];
                    m = fmaxf(m, c[(2 * ph) * Wo + 2 * pw + 1]);
                    m = fmaxf(m, c[(2 * ph + 1) * Wo + 2 * pw]);
                    m = fmaxf(m, c[(2 * ph + 1) * Wo + 2 * pw + 1]);
                    acc += 1.f / (1.f + std::exp(-m));
                }
                out[(n * Hp + ph) * Wp + pw] = acc;
            }
}
