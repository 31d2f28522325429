// v1: naive linear kernels for the projections; attention with one thread per (batch, head, query) running an
// online softmax over the keys.
#include <cstdint>
#include <cuda_runtime.h>

__global__ void linear_naive(const float* x, const float* W, const float* b, float* y, int64_t K, int64_t N) {
    const int64_t j = blockIdx.x * (int64_t)blockDim.x + threadIdx.x, i = blockIdx.y;
    if (j >= N) return;
    float s = b[j];
    for (int64_t k = 0; k < K; ++k) s += x[i * K + k] * W[j * K + k];
    y[i * N + j] = s;
}

__global__ void attend_naive(const float* qkv, float* ctx, int64_t B, int64_t T, int64_t C, int64_t H, float scale) {
    const int64_t id = blockIdx.x * (int64_t)blockDim.x + threadIdx.x;
    if (id >= B * H * T) return;
    const int64_t t = id % T, h = (id / T) % H, b = id / (T * H), D = C / H;
    const float* q = qkv + (b * T + t) * 3 * C + h * D;
    float o[128]; float m = -INFINITY, z = 0.f;
    for (int64_t d = 0; d < D; ++d) o[d] = 0.f;
    for (int64_t s = 0; s < T; ++s) {
        const float* k = qkv + (b * T + s) * 3 * C + C + h * D; const float* v = k + C;
        float dot = 0.f;
        for (int64_t d = 0; d < D; ++d) dot += q[d] * k[d];
        dot *= scale;
        const float mn = fmaxf(m, dot), corr = expf(m - mn), p = expf(dot - mn);
        for (int64_t d = 0; d < D; ++d) o[d] = o[d] * corr + p * v[d];
        z = z * corr + p; m = mn;
    }
    float* out = ctx + (b * T + t) * C + h * D;
    for (int64_t d = 0; d < D; ++d) out[d] = o[d] / z;
}

extern "C" void attention_launch(const float* x, const float* Wqkv, const float* bqkv, const float* Wo, const float* bo,
                                 float* qkv, float* ctx, float* y, int64_t B, int64_t T, int64_t C, int64_t H, void* stream) {
    cudaStream_t s = (cudaStream_t)stream;
    linear_naive<<<dim3((unsigned)((3 * C + 255) / 256), (unsigned)(B * T)), 256, 0, s>>>(x, Wqkv, bqkv, qkv, C, 3 * C);
    attend_naive<<<(B * H * T + 127) / 128, 128, 0, s>>>(qkv, ctx, B, T, C, H, 1.f / sqrtf((float)(C / H)));
    linear_naive<<<dim3((unsigned)((C + 255) / 256), (unsigned)(B * T)), 256, 0, s>>>(ctx, Wo, bo, y, C, C);
}
