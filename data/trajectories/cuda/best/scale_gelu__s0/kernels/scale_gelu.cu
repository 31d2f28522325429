// v2: float4 grid-stride loop; 0.5 v (1 + tanh(u)) == v / (1 + exp(-2u)) with the fast __expf.
#include <cstdint>
#include <cuda_runtime.h>

__device__ __forceinline__ float gelu_tanh(float v) {
    const float u2 = 2.f * 0.7978845608f * (v + 0.044715f * v * v * v);
    return __fdividef(v, 1.f + __expf(-u2));
}

__global__ void scale_gelu4(const float4* __restrict__ x, float4* __restrict__ y, int64_t n4, float s) {
    for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < n4; i += (int64_t)gridDim.x * blockDim.x) {
        float4 v = x[i];
        v.x = gelu_tanh(v.x * s); v.y = gelu_tanh(v.y * s); v.z = gelu_tanh(v.z * s); v.w = gelu_tanh(v.w * s);
        y[i] = v;
    }
}

__global__ void scale_gelu_tail(const float* x, float* y, int64_t start, int64_t n, float s) {
    int64_t i = start + blockIdx.x * (int64_t)blockDim.x + threadIdx.x;
    if (i < n) y[i] = gelu_tanh(x[i] * s);
}

extern "C" void scale_gelu_launch(const float* x, float* y, int64_t n, float scale, void* stream) {
    cudaStream_t st = (cudaStream_t)stream;
    int dev = 0, sms = 0; cudaGetDevice(&dev); cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev);
    const int64_t n4 = ((reinterpret_cast<uintptr_t>(x) | reinterpret_cast<uintptr_t>(y)) % 16 == 0) ? n / 4 : 0;
    if (n4) {
        int64_t blocks = (n4 + 255) / 256; if (blocks > sms * 8) blocks = sms * 8;
        scale_gelu4<<<blocks, 256, 0, st>>>(reinterpret_cast<const float4*>(x), reinterpret_cast<float4*>(y), n4, scale);
    }
    if (n - 4 * n4 > 0) scale_gelu_tail<<<(n - 4 * n4 + 255) / 256, 256, 0, st>>>(x, y, 4 * n4, n, scale);
}
