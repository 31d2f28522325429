// v2: convolution as row-wise shifted multiply-adds (vectorised, padding by clipped ranges); the per-channel
// batch statistics are gathered while each output plane is still in cache; then one normalise+ReLU pass.
#include <cmath>
#include <cstdint>
#include <vector>

extern "C" void conv_bn_relu_launch(const float* x, const float* w, const float* bias, const float* gamma, const float* beta,
                                    const float* /*running_mean*/, const float* /*running_var*/, float* y,
                                    int64_t N, int64_t Ci, int64_t H, int64_t W, int64_t Co, float eps, void*) {
    const int64_t HW = H * W;
    std::vector<double> sum(N * Co), sumsq(N * Co);
    const bool par = N * Co * HW * Ci * 9 >= (1 << 22);
    #pragma omp parallel for collapse(2) schedule(static) if (par)
    for (int64_t n = 0; n < N; ++n)
        for (int64_t co = 0; co < Co; ++co) {
            float* yp = y + (n * Co + co) * HW;
            for (int64_t i = 0; i < HW; ++i) yp[i] = bias[co];
            for (int64_t ci = 0; ci < Ci; ++ci) {
                const float* xp = x + (n * Ci + ci) * HW; const float* wp = w + (co * Ci + ci) * 9;
                for (int64_t kh = 0; kh < 3; ++kh)
                    for (int64_t kw = 0; kw < 3; ++kw) {
                        const float wv = wp[kh * 3 + kw]; const int64_t dx = kw - 1;
                        const int64_t ow0 = dx < 0 ? 1 : 0, ow1 = dx > 0 ? W - 1 : W;
                        for (int64_t oh = 0; oh < H; ++oh) {
                            const int64_t ih = oh + kh - 1;
                            if (ih < 0 || ih >= H) continue;
                            float* yr = yp + oh * W; const float* xr = xp + ih * W + dx;
                            #pragma omp simd
                            for (int64_t ow = ow0; ow < ow1; ++ow) yr[ow] += wv * xr[ow];
                        }
                    }
            }
            float s = 0.f, ss = 0.f;                        // plane statistics (float lanes, summed in double below)
            #pragma omp simd reduction(+:s, ss)
            for (int64_t i = 0; i < HW; ++i) { s += yp[i]; ss += yp[i] * yp[i]; }
            sum[n * Co + co] = s; sumsq[n * Co + co] = ss;
        }
    for (int64_t c = 0; c < Co; ++c) {
        double s = 0.0, ss = 0.0;
        for (int64_t n = 0; n < N; ++n) { s += sum[n * Co + c]; ss += sumsq[n * Co + c]; }
        const double cnt = (double)N * HW, mean = s / cnt, var = ss / cnt - mean * mean;
        const float a = (float)(gamma[c] / std::sqrt(var + eps)), b = (float)(beta[c] - mean * a);
        for (int64_t n = 0; n < N; ++n) {
            float* p = y + (n * Co + c) * HW;
            #pragma omp simd
            for (int64_t i = 0; i < HW; ++i) { float v = p[i] * a + b; p[i] = v > 0.f ? v : 0.f; }
        }
    }
}
