// v2: the whole block in two tiled GEMMs: h = gelu(x W1^T + b1) with bias and exact GELU in the first epilogue,
// y = x + h W2^T + b2 with bias and residual in the second. No torch ops and no separate elementwise kernels.
#include <cstdint>
#include <cuda_runtime.h>

// Tiled SGEMM: C[m, n] = epi(sum_k A[m, k] * B(k, n), m, n). A is row-major (M, K). B is row-major (K, N), or
// (N, K) when BT (the nn.Linear weight layout). 64x64 output tile per block, K in steps of 16 through shared
// memory, 256 threads each holding a 4x4 register tile.
template <bool BT, class Epi>
__global__ void __launch_bounds__(256) gemm64(const float* __restrict__ A, const float* __restrict__ B, float* __restrict__ C,
                                              int M, int N, int K, int lda, int ldb, int ldc, Epi epi) {
    __shared__ float As[16][64 + 4], Bs[16][64 + 4];
    const int tx = threadIdx.x % 16, ty = threadIdx.x / 16;
    const int m0 = blockIdx.y * 64, n0 = blockIdx.x * 64;
    float acc[4][4] = {};
    for (int k0 = 0; k0 < K; k0 += 16) {
        for (int e = threadIdx.x; e < 64 * 16; e += 256) {
            const int r = e / 16, c = e % 16, gk = k0 + c;
            As[c][r] = (m0 + r < M && gk < K) ? A[(int64_t)(m0 + r) * lda + gk] : 0.f;
            if (BT) Bs[c][r] = (n0 + r < N && gk < K) ? B[(int64_t)(n0 + r) * ldb + gk] : 0.f;
            else {
                const int kk = e / 64, nn = e % 64;
                Bs[kk][nn] = (k0 + kk < K && n0 + nn < N) ? B[(int64_t)(k0 + kk) * ldb + n0 + nn] : 0.f;
            }
        }
        __syncthreads();
        #pragma unroll
        for (int k = 0; k < 16; ++k) {
            float a[4], b[4];
            #pragma unroll
            for (int i = 0; i < 4; ++i) { a[i] = As[k][ty * 4 + i]; b[i] = Bs[k][tx * 4 + i]; }
            #pragma unroll
            for (int i = 0; i < 4; ++i)
                #pragma unroll
                for (int j = 0; j < 4; ++j) acc[i][j] += a[i] * b[j];
        }
        __syncthreads();
    }
    #pragma unroll
    for (int i = 0; i < 4; ++i)
        #pragma unroll
        for (int j = 0; j < 4; ++j) {
            const int m = m0 + ty * 4 + i, n = n0 + tx * 4 + j;
            if (m < M && n < N) C[(int64_t)m * ldc + n] = epi(acc[i][j], m, n);
        }
}

struct BiasGelu { const float* b; __device__ float operator()(float v, int, int n) const {
    float t = v + b[n]; return 0.5f * t * (1.f + erff(t * 0.70710678f)); } };
struct BiasResidual { const float* b; const float* x; int ld; __device__ float operator()(float v, int m, int n) const {
    return v + b[n] + x[(int64_t)m * ld + n]; } };

extern "C" void mlp_launch(const float* x, const float* W1, const float* b1, const float* W2, const float* b2,
                           float* h, float* y, int64_t M, int64_t C, int64_t F, void* stream) {
    cudaStream_t s = (cudaStream_t)stream;
    gemm64<true><<<dim3((unsigned)((F + 63) / 64), (unsigned)((M + 63) / 64)), 256, 0, s>>>(
        x, W1, h, (int)M, (int)F, (int)C, (int)C, (int)C, (int)F, BiasGelu{b1});
    gemm64<true><<<dim3((unsigned)((C + 63) / 64), (unsigned)((M + 63) / 64)), 256, 0, s>>>(
        h, W2, y, (int)M, (int)C, (int)F, (int)F, (int)F, (int)C, BiasResidual{b2, x, (int)C});
}
