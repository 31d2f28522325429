// v1: direct 3x3 convolution, one thread per output element.
#include <cstdint>
#include <cuda_runtime.h>

__global__ void conv3x3_naive(const float* x, const float* w, const float* bias, float* y,
                              int64_t N, int64_t Ci, int64_t H, int64_t W, int64_t Co, int64_t P) {
    const int64_t Ho = H + 2 * P - 2, Wo = W + 2 * P - 2;
    const int64_t id = blockIdx.x * (int64_t)blockDim.x + threadIdx.x;
    if (id >= N * Co * Ho * Wo) return;
    const int64_t ow = id % Wo, oh = (id / Wo) % Ho, co = (id / (Wo * Ho)) % Co, n = id / (Wo * Ho * Co);
    float s = bias[co];
    for (int64_t ci = 0; ci < Ci; ++ci)
        for (int64_t kh = 0; kh < 3; ++kh)
            for (int64_t kw = 0; kw < 3; ++kw) {
                const int64_t ih = oh + kh - P, iw = ow + kw - P;
                if (ih >= 0 && ih < H && iw >= 0 && iw < W)
                    s += x[((n * Ci + ci) * H + ih) * W + iw] * w[((co * 3 + kh) * 3 + kw) * Ci + ci];
            }
    y[id] = s;
}

extern "C" void conv2d_launch(const float* x, const float* w, const float* bias, float* y,
                              int64_t N, int64_t Ci, int64_t H, int64_t W, int64_t Co, int64_t P, void* stream) {
    const int64_t total = N * Co * (H + 2 * P - 2) * (W + 2 * P - 2);
    conv3x3_naive<<<(total + 255) / 256, 256, 0, (cudaStream_t)stream>>>(x, w, bias, y, N, Ci, H, W, Co, P);
}
