// v1: naive 3x3 convolution (padding 1), then BatchNorm with the module's running statistics and ReLU.
#include <cstdint>
#include <cuda_runtime.h>

__global__ void conv3x3_naive(const float* x, const float* w, const float* bias, float* y,
                              int64_t N, int64_t Ci, int64_t H, int64_t W, int64_t Co) {
    const int64_t id = blockIdx.x * (int64_t)blockDim.x + threadIdx.x;
    if (id >= N * Co * H * W) return;
    const int64_t ow = id % W, oh = (id / W) % H, co = (id / (W * H)) % Co, n = id / (W * H * Co);
    float s = bias[co];
    for (int64_t ci = 0; ci < Ci; ++ci)
        for (int64_t kh = 0; kh < 3; ++kh)
            for (int64_t kw = 0; kw < 3; ++kw) {
                const int64_t ih = oh + kh - 1, iw = ow + kw - 1;
                if (ih >= 0 && ih < H && iw >= 0 && iw < W)
                    s += x[((n * Ci + ci) * H + ih) * W + iw] * w[((co * Ci + ci) * 3 + kh) * 3 + kw];
            }
    y[id] = s;
}

__global__ void bn_relu(float* y, const float* gamma, const float* beta, const float* mean, const float* var,
                        int64_t total, int64_t Co, int64_t HW, float eps) {
    const int64_t id = blockIdx.x * (int64_t)blockDim.x + threadIdx.x;
    if (id >= total) return;
    const int64_t c = (id / HW) % Co;
    const float v = (y[id] - mean[c]) * rsqrtf(var[c] + eps) * gamma[c] + beta[c];
    y[id] = fmaxf(v, 0.f);
}

extern "C" void conv_bn_relu_launch(const float* x, const float* w, const float* bias, const float* gamma, const float* beta,
                                    const float* running_mean, const float* running_var, float* y,
                                    int64_t N, int64_t Ci, int64_t H, int64_t W, int64_t Co, float eps, void* stream) {
    cudaStream_t s = (cudaStream_t)stream;
    const int64_t total = N * Co * H * W;
    conv3x3_naive<<<(total + 255) / 256, 256, 0, s>>>(x, w, bias, y, N, Ci, H, W, Co);
    bn_relu<<<(total + 255) / 256, 256, 0, s>>>(y, gamma, beta, running_mean, running_var, total, Co, H * W, eps);
}
