// v2: tiled batched GEMM (blockIdx.z = batch) with the scale folded into the epilogue; a row-statistics kernel
// (max and sum of exp with warp shuffles) instead of rewriting the scores; the column mean reads each score
// once and applies exp(s - max) / sum on the fly: the softmax is never written back.
#include <cstdint>
#include <cuda_runtime.h>

// Tiled SGEMM body: C[m, n] = epi(sum_k A[m, k] * B(k, n), m, n). A is row-major (M, K). B is row-major (K, N), or
// (N, K) when BT (the nn.Linear weight layout). 64x64 output tile per block, K in steps of 16 through shared
// memory, 256 threads each holding a 4x4 register tile.
template <bool BT, class Epi>
__device__ __forceinline__ void gemm64_body(const float* __restrict__ A, const float* __restrict__ B, float* __restrict__ C,
                                              int M, int N, int K, int lda, int ldb, int ldc, Epi epi) {
    __shared__ float As[16][64 + 4], Bs[16][64 + 4];
    const int tx = threadIdx.x % 16, ty = threadIdx.x / 16;
    const int m0 = blockIdx.y * 64, n0 = blockIdx.x * 64;   // the batch is blockIdx.z (pointers shifted by the caller)
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

struct Scale { float s; __device__ float operator()(float v, int, int) const { return v * s; } };

template <bool BT, class Epi>
__global__ void __launch_bounds__(256) gemm64_batched(const float* A, const float* B, float* C, int M, int N, int K,
                                                      int64_t sA, int64_t sB, int64_t sC, Epi epi) {
    // one batch per blockIdx.z: shift the pointers and reuse the tile kernel's body through a device call
    gemm64_body<BT>(A + blockIdx.z * sA, B + blockIdx.z * sB, C + blockIdx.z * sC, M, N, K, K, N, N, epi);
}

__global__ void row_stats(const float* s, float2* stats, int64_t N) {   // (max, 1 / sum exp(s - max)) per row
    const float* r = s + blockIdx.x * N;
    float m = -INFINITY, z = 0.f;
    for (int64_t j = threadIdx.x; j < N; j += blockDim.x) {
        float v = r[j], mn = fmaxf(m, v);
        z = z * __expf(m - mn) + __expf(v - mn); m = mn;
    }
    for (int o = 16; o > 0; o >>= 1) {
        float m2 = __shfl_xor_sync(0xffffffff, m, o), z2 = __shfl_xor_sync(0xffffffff, z, o), mn = fmaxf(m, m2);
        z = (m == -INFINITY ? 0.f : z * __expf(m - mn)) + (m2 == -INFINITY ? 0.f : z2 * __expf(m2 - mn)); m = mn;
    }
    __shared__ float sm[32], sz[32];
    if (threadIdx.x % 32 == 0) { sm[threadIdx.x / 32] = m; sz[threadIdx.x / 32] = z; }
    __syncthreads();
    if (threadIdx.x == 0) {
        float M = -INFINITY, Z = 0.f;
        for (int w = 0; w < (int)blockDim.x / 32; ++w) { float mn = fmaxf(M, sm[w]); Z = (M == -INFINITY ? 0.f : Z * __expf(M - mn)) + sz[w] * __expf(sm[w] - mn); M = mn; }
        stats[blockIdx.x] = make_float2(M, 1.f / Z);
    }
}

__global__ void softmax_col_mean(const float* s, const float2* stats, float* out, int64_t M, int64_t N) {
    const int64_t p = blockIdx.y, j = blockIdx.x * (int64_t)blockDim.x + threadIdx.x;
    if (j >= N) return;
    float acc = 0.f;
    for (int64_t i = 0; i < M; ++i) { float2 st = stats[p * M + i]; acc += __expf(s[(p * M + i) * N + j] - st.x) * st.y; }
    out[p * N + j] = acc / M;
}

extern "C" void mssm_launch(const float* a, const float* b, float* s, float* out,
                            int64_t batch, int64_t M, int64_t K, int64_t N, float scale, void* stream) {
    cudaStream_t st = (cudaStream_t)stream;
    float2* stats = nullptr;
    cudaMallocAsync((void**)&stats, sizeof(float2) * batch * M, st);
    dim3 grid((unsigned)((N + 63) / 64), (unsigned)((M + 63) / 64), (unsigned)batch);
    gemm64_batched<false><<<grid, 256, 0, st>>>(a, b, s, (int)M, (int)N, (int)K, M * K, K * N, M * N, Scale{scale});
    row_stats<<<batch * M, 256, 0, st>>>(s, stats, N);
    softmax_col_mean<<<dim3((unsigned)((N + 255) / 256), (unsigned)batch), 256, 0, st>>>(s, stats, out, M, N);
    cudaFreeAsync(stats, st);
}
