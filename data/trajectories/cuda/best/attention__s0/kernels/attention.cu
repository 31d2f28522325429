// v2: tiled GEMMs for both projections (bias in the epilogue) and a flash-style causal attention kernel for
// head size 64: a block of 64 threads owns 64 consecutive queries of one (batch, head), each thread keeps its
// query and output row in registers, and 64-key tiles of K and V are staged in shared memory (reads are
// broadcasts). Tiles past the block's last query are skipped; the diagonal tile is masked.
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

struct Bias { const float* b; __device__ float operator()(float v, int, int n) const { return v + b[n]; } };

__global__ void __launch_bounds__(64) flash_causal64(const float* __restrict__ qkv, float* __restrict__ ctx, int T, int C, int H, float scale) {
    constexpr int D = 64, BK = 64;
    __shared__ float Ks[BK][D], Vs[BK][D];
    const int b = blockIdx.z, h = blockIdx.y, q0 = blockIdx.x * 64, t = q0 + threadIdx.x;
    const int64_t row = 3LL * C;
    float q[D], o[D], m = -INFINITY, z = 0.f;
    #pragma unroll
    for (int d = 0; d < D; ++d) { q[d] = t < T ? qkv[((int64_t)b * T + t) * row + h * D + d] * scale : 0.f; o[d] = 0.f; }
    const int last = min(q0 + 63, T - 1);
    for (int s0 = 0; s0 <= last; s0 += BK) {
        for (int e = threadIdx.x; e < BK * D; e += 64) {
            const int r = e / D, d = e % D, s = s0 + r;
            const float* base = qkv + ((int64_t)b * T + (s < T ? s : 0)) * row + h * D + d;
            Ks[r][d] = s < T ? base[C] : 0.f; Vs[r][d] = s < T ? base[2 * C] : 0.f;
        }
        __syncthreads();
        const int smax = min(BK, T - s0);
        for (int r = 0; r < smax; ++r) {
            if (s0 + r > t) break;                         // causal: keys after the query are masked
            float dot = 0.f;
            #pragma unroll
            for (int d = 0; d < D; ++d) dot += q[d] * Ks[r][d];
            const float mn = fmaxf(m, dot), corr = __expf(m - mn), p = __expf(dot - mn);
            #pragma unroll
            for (int d = 0; d < D; ++d) o[d] = o[d] * corr + p * Vs[r][d];
            z = z * corr + p; m = mn;
        }
        __syncthreads();
    }
    if (t < T) {
        float* out = ctx + ((int64_t)b * T + t) * C + h * D;
        const float inv = 1.f / z;
        #pragma unroll
        for (int d = 0; d < D; ++d) out[d] = o[d] * inv;
    }
}

__global__ void attend_generic(const float* qkv, float* ctx, int64_t B, int64_t T, int64_t C, int64_t H, float scale) {
    const int64_t id = blockIdx.x * (int64_t)blockDim.x + threadIdx.x;
    if (id >= B * H * T) return;
    const int64_t t = id % T, h = (id / T) % H, b = id / (T * H), D = C / H;
    const float* q = qkv + (b * T + t) * 3 * C + h * D;
    float o[128]; float m = -INFINITY, z = 0.f;
    for (int64_t d = 0; d < D; ++d) o[d] = 0.f;
    for (int64_t s = 0; s <= t; ++s) {
        const float* k = qkv + (b * T + s) * 3 * C + C + h * D; const float* v = k + C;
        float dot = 0.f;
        for (int64_t d = 0; d < D; ++d) dot += q[d] * k[d];
        dot *= scale;
        const float mn = fmaxf(m, dot), corr = __expf(m - mn), p = __expf(dot - mn);
        for (int64_t d = 0; d < D; ++d) o[d] = o[d] * corr + p * v[d];
        z = z * corr + p; m = mn;
    }
    float* out = ctx + (b * T + t) * C + h * D;
    for (int64_t d = 0; d < D; ++d) out[d] = o[d] / z;
}

extern "C" void attention_launch(const float* x, const float* Wqkv, const float* bqkv, const float* Wo, const float* bo,
                                 float* qkv, float* ctx, float* y, int64_t B, int64_t T, int64_t C, int64_t H, void* stream) {
    cudaStream_t s = (cudaStream_t)stream;
    const int M = (int)(B * T), D = (int)(C / H);
    const float scale = 1.f / sqrtf((float)D);
    gemm64<true><<<dim3((unsigned)((3 * C + 63) / 64), (unsigned)((M + 63) / 64)), 256, 0, s>>>(
        x, Wqkv, qkv, M, (int)(3 * C), (int)C, (int)C, (int)C, (int)(3 * C), Bias{bqkv});
    if (D == 64) flash_causal64<<<dim3((unsigned)((T + 63) / 64), (unsigned)H, (unsigned)B), 64, 0, s>>>(qkv, ctx, (int)T, (int)C, (int)H, scale);
    else attend_generic<<<(B * H * T + 127) / 128, 128, 0, s>>>(qkv, ctx, B, T, C, H, scale);
    gemm64<true><<<dim3((unsigned)((C + 63) / 64), (unsigned)((M + 63) / 64)), 256, 0, s>>>(
        ctx, Wo, y, M, (int)C, (int)C, (int)C, (int)C, (int)C, Bias{bo});
}
