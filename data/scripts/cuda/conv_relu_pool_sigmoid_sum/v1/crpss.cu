// v1: naive conv 3x3 (no padding) + ReLU into the scratch buffer, then one thread per pooled output doing
// the 2x2 max, the sigmoid and the sum over channels.
#include <cstdint>
#include <cuda_runtime.h>

__global__ void conv_relu(const float* x, const float* w, const float* bias, float* conv,
                          int64_t N, int64_t Ci, int64_t H, int64_t W, int64_t Co) {
    const int64_t Ho = H - 2, Wo = W - 2, id = blockIdx.x * (int64_t)blockDim.x + threadIdx.x;
    if (id >= N * Co * Ho * Wo) return;
    const int64_t ow = id % Wo, oh = (id / Wo) % Ho, co = (id / (Wo * Ho)) % Co, n = id / (Wo * Ho * Co);
    float s = bias[co];
    for (int64_t ci = 0; ci < Ci; ++ci)
        for (int64_t kh = 0; kh < 3; ++kh)
            for (int64_t kw = 0; kw < 3; ++kw)
                s += x[((n * Ci + ci) * H + oh + kh) * W + ow + kw] * w[((co * Ci + ci) * 3 + kh) * 3 + kw];
    conv[id] = fmaxf(s, 0.f);
}

__global__ void pool_sigmoid_sum(const float* conv, float* out, int64_t N, int64_t Co, int64_t Ho, int64_t Wo) {
    const int64_t Hp = Ho / 2, Wp = Wo / 2, id = blockIdx.x * (int64_t)blockDim.x + threadIdx.x;
    if (id >= N * Hp * Wp) return;
    const int64_t pw = id % Wp, ph = (id / Wp) % Hp, n = id / (Wp * Hp);
    float acc = 0.f;
    for (int64_t co = 0; co < Co; ++co) {
        const float* c = conv + (n * Co + co) * Ho * Wo + (2 * ph) * Wo + 2 * pw;
        const float m = fmaxf(fmaxf(c[0], c[1]), fmaxf(c[Wo], c[Wo + 1]));
        acc += 1.f / (1.f + expf(-m));
    }
    out[id] = acc;
}

extern "C" void crpss_launch(const float* x, const float* w, const float* bias, float* conv, float* out,
                             int64_t N, int64_t Ci, int64_t H, int64_t W, int64_t Co, void* stream) {
    cudaStream_t s = (cudaStream_t)stream;
    const int64_t Ho = H - 2, Wo = W - 2, total = N * Co * Ho * Wo, pooled = N * (Ho / 2) * (Wo / 2);
    conv_relu<<<(total + 255) / 256, 256, 0, s>>>(x, w, bias, conv, N, Ci, H, W, Co);
    pool_sigmoid_sum<<<(pooled + 255) / 256, 256, 0, s>>>(conv, out, N, Co, Ho, Wo);
}
