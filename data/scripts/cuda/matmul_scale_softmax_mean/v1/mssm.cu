// v1: three naive kernels: scores = bmm(a, b) * scale into the scratch buffer, row softmax in place, then the mean.
#include <cstdint>
#include <cuda_runtime.h>

__global__ void scores_naive(const float* a, const float* b, float* s, int64_t M, int64_t K, int64_t N, float scale) {
    const int64_t p = blockIdx.z, i = blockIdx.y, j = blockIdx.x * (int64_t)blockDim.x + threadIdx.x;
    if (j >= N) return;
    float acc = 0.f;
    for (int64_t k = 0; k < K; ++k) acc += a[(p * M + i) * K + k] * b[(p * K + k) * N + j];
    s[(p * M + i) * N + j] = acc * scale;
}

__global__ void softmax_rows(float* s, int64_t N) {     // one block per row, shared-memory reductions
    __shared__ float buf[256];
    float* r = s + blockIdx.x * N;
    float m = -INFINITY;
    for (int64_t j = threadIdx.x; j < N; j += blockDim.x) m = fmaxf(m, r[j]);
    buf[threadIdx.x] = m; __syncthreads();
    for (int k = blockDim.x / 2; k > 0; k >>= 1) { if (threadIdx.x < k) buf[threadIdx.x] = fmaxf(buf[threadIdx.x], buf[threadIdx.x + k]); __syncthreads(); }
    m = buf[0]; __syncthreads();
    float z = 0.f;
    for (int64_t j = threadIdx.x; j < N; j += blockDim.x) { r[j] = expf(r[j] - m); z += r[j]; }
    buf[threadIdx.x] = z; __syncthreads();
    for (int k = blockDim.x / 2; k > 0; k >>= 1) { if (threadIdx.x < k) buf[threadIdx.x] += buf[threadIdx.x + k]; __syncthreads(); }
    z = buf[0];
    for (int64_t j = threadIdx.x; j < N; j += blockDim.x) r[j] /= z;
}

__global__ void mean_rows(const float* s, float* out, int64_t M, int64_t N) {   // one thread per (p, i)
    const int64_t p = blockIdx.y, i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x;
    if (i >= M) return;
    float acc = 0.f;
    for (int64_t j = 0; j < N; ++j) acc += s[(p * M + i) * N + j];
    out[p * M + i] = acc / N;
}

extern "C" void mssm_launch(const float* a, const float* b, float* s, float* out,
                            int64_t batch, int64_t M, int64_t K, int64_t N, float scale, void* stream) {
    cudaStream_t st = (cudaStream_t)stream;
    scores_naive<<<dim3((unsigned)((N + 255) / 256), (unsigned)M, (unsigned)batch), 256, 0, st>>>(a, b, s, M, K, N, scale);
    softmax_rows<<<batch * M, 256, 0, st>>>(s, N);
    mean_rows<<<dim3((unsigned)((M + 255) / 256), (unsigned)batch), 256, 0, st>>>(s, out, M, N);
}
