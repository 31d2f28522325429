// v1: direct 3x3 convolution, stride 1, zero padding P; one output element per iteration.
#include <cstdint>

extern "C" void conv2d_launch(const float* x, const float* w, const float* bias, float* y,
                              int64_t N, int64_t Ci, int64_t H, int64_t W, int64_t Co, int64_t P, void*) {
    const int64_t KH = 3, KW = 3, Ho = H + 2 * P - KH + 1, Wo = W + 2 * P - KW + 1;
    #pragma omp parallel for collapse(2)
    for (int64_t n = 0; n < N; ++n)
        for (int64_t co = 0; co < Co; ++co)
            for (int64_t oh = 0; oh < Ho; ++oh)
                for (int64_t ow = 0; ow < Wo; ++ow) {
                    float s = bias[co];
                    for (int64_t ci = 0; ci < Ci; ++ci)
                        for (int64_t kh = 0; kh < KH; ++kh)
                            for (int64_t kw = 0; kw < KW; ++kw) {
                                const int64_t ih = oh + kh - P, iw = ow + kw - P;
                                if (ih < 0 || ih >= H || iw < 0 || iw >= W) continue;
                                s += x[((n * Ci + ci) * H + ih) * W + iw] * w[((co * KH + kh) * KW + kw) * Ci + ci];
                            }
                    y[((n * Co + co) * Ho + oh) * Wo + ow] = s;
                }
}
