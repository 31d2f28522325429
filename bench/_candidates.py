"""Candidate generator for bench/harness_cycle.py: the same CUDA kernels with two bindings each — the workbench's
lean `cawb_binding.h` one (in kernels/) and a conventional torch/extension.h one (conv_binding.cpp, outside kernels/)
for the conventional path. Variants differ in block size, so every candidate is a new source."""
from pathlib import Path

LEAN_HDR = '#include "cawb_binding.h"\n'
KERNELS = {
 'relu': dict(
  cu=r'''#include <cstdint>
#include <cuda_runtime.h>
#define BLOCK __BLOCK__
__global__ void relu_kernel(const float4* __restrict__ x, float4* __restrict__ y, int64_t n4) {
    for (int64_t i = blockIdx.x * (int64_t)BLOCK + threadIdx.x; i < n4; i += (int64_t)gridDim.x * BLOCK) {
        float4 v = x[i]; v.x = fmaxf(v.x, 0.f); v.y = fmaxf(v.y, 0.f); v.z = fmaxf(v.z, 0.f); v.w = fmaxf(v.w, 0.f); y[i] = v;
    }
}
extern "C" void relu_launch(const float* x, float* y, int64_t n, void* stream) {
    int64_t n4 = n / 4; int blocks = (int)((n4 + BLOCK - 1) / BLOCK); if (blocks > 132 * 16) blocks = 132 * 16;
    relu_kernel<<<blocks, BLOCK, 0, (cudaStream_t)stream>>>((const float4*)x, (float4*)y, n4);
}
''',
  sig='extern "C" void relu_launch(const float* x, float* y, int64_t n, void* stream);',
  lean='''static void relu_forward(cawb::Call& c) {
    const cawb::Tensor& x = c.input(0); cawb::Tensor y = c.new_output_like(x);
    relu_launch(x.data<float>(), y.data<float>(), x.numel(), c.stream());
}
CAWB_REGISTER(relu_forward)''',
  conv='''torch::Tensor relu_forward(torch::Tensor x) {
    auto y = torch::empty_like(x);
    relu_launch(x.data_ptr<float>(), y.data_ptr<float>(), x.numel(), c10::cuda::getCurrentCUDAStream().stream());
    return y;
}''',
  model='''import torch, torch.nn as nn
import cawb_ext
class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()
    def forward(self, x):
        return cawb_ext.relu_forward(x.contiguous())
'''),
 'scale_gelu': dict(
  cu=r'''#include <cstdint>
#include <cuda_runtime.h>
#define BLOCK __BLOCK__
__device__ __forceinline__ float gelu_tanh(float v) { const float k = 0.7978845608028654f; return 0.5f * v * (1.f + tanhf(k * (v + 0.044715f * v * v * v))); }
__global__ void scale_gelu_kernel(const float* __restrict__ x, float* __restrict__ y, int64_t n, float s) {
    for (int64_t i = blockIdx.x * (int64_t)BLOCK + threadIdx.x; i < n; i += (int64_t)gridDim.x * BLOCK) y[i] = gelu_tanh(x[i] * s);
}
extern "C" void scale_gelu_launch(const float* x, float* y, int64_t n, float s, void* stream) {
    int blocks = (int)((n + BLOCK - 1) / BLOCK); if (blocks > 132 * 32) blocks = 132 * 32;
    scale_gelu_kernel<<<blocks, BLOCK, 0, (cudaStream_t)stream>>>(x, y, n, s);
}
''',
  sig='extern "C" void scale_gelu_launch(const float* x, float* y, int64_t n, float s, void* stream);',
  lean='''static void scale_gelu(cawb::Call& c) {
    const cawb::Tensor& x = c.input(0); cawb::Tensor y = c.new_output_like(x);
    scale_gelu_launch(x.data<float>(), y.data<float>(), x.numel(), (float)c.number(0), c.stream());
}
CAWB_REGISTER(scale_gelu)''',
  conv='''torch::Tensor scale_gelu(torch::Tensor x, double s) {
    auto y = torch::empty_like(x);
    scale_gelu_launch(x.data_ptr<float>(), y.data_ptr<float>(), x.numel(), (float)s, c10::cuda::getCurrentCUDAStream().stream());
    return y;
}''',
  model='''import torch, torch.nn as nn
import cawb_ext
class ModelNew(nn.Module):
    def __init__(self, scale):
        super().__init__()
        self.scale = scale
    def forward(self, x):
        return cawb_ext.scale_gelu(x.contiguous(), self.scale)
'''),
 'rmsnorm_silu_mul': dict(
  cu=r'''#include <cstdint>
#include <cuda_runtime.h>
#define BLOCK __BLOCK__
__global__ void rms_kernel(const float* __restrict__ x, const float* __restrict__ w, float* __restrict__ out, int64_t H, float eps) {
    const float* xr = x + blockIdx.x * H; float* o = out + blockIdx.x * H;
    float ss = 0.f;
    for (int64_t j = threadIdx.x; j < H; j += BLOCK) { float v = xr[j]; ss += v * v; }
    __shared__ float red[32];
    for (int k = 16; k > 0; k >>= 1) ss += __shfl_xor_sync(0xffffffff, ss, k);
    if ((threadIdx.x & 31) == 0) red[threadIdx.x >> 5] = ss;
    __syncthreads();
    if (threadIdx.x < 32) {
        float t = threadIdx.x < BLOCK / 32 ? red[threadIdx.x] : 0.f;
        for (int k = 16; k > 0; k >>= 1) t += __shfl_xor_sync(0xffffffff, t, k);
        if (threadIdx.x == 0) red[0] = t;
    }
    __syncthreads();
    float inv = rsqrtf(red[0] / (float)H + eps);
    for (int64_t j = threadIdx.x; j < H; j += BLOCK) { float y = xr[j] * inv * w[j]; o[j] = y / (1.f + __expf(-y)) * y; }
}
extern "C" void rms_launch(const float* x, const float* w, float* out, int64_t rows, int64_t H, float eps, void* stream) {
    rms_kernel<<<(unsigned)rows, BLOCK, 0, (cudaStream_t)stream>>>(x, w, out, H, eps);
}
''',
  sig='extern "C" void rms_launch(const float* x, const float* w, float* out, int64_t rows, int64_t H, float eps, void* stream);',
  lean='''static void rmsnorm_silu_mul(cawb::Call& c) {
    const cawb::Tensor& x = c.input(0); const cawb::Tensor& w = c.input(1); cawb::Tensor o = c.new_output_like(x);
    int64_t H = x.size(-1);
    rms_launch(x.data<float>(), w.data<float>(), o.data<float>(), x.numel() / H, H, (float)c.number(0), c.stream());
}
CAWB_REGISTER(rmsnorm_silu_mul)''',
  conv='''torch::Tensor rmsnorm_silu_mul(torch::Tensor x, torch::Tensor w, double eps) {
    auto o = torch::empty_like(x); int64_t H = x.size(-1);
    rms_launch(x.data_ptr<float>(), w.data_ptr<float>(), o.data_ptr<float>(), x.numel() / H, H, (float)eps, c10::cuda::getCurrentCUDAStream().stream());
    return o;
}''',
  model='''import torch, torch.nn as nn
import cawb_ext
class ModelNew(nn.Module):
    def __init__(self, hidden, eps):
        super().__init__()
        self.weight = nn.Parameter(torch.ones(hidden))
        self.eps = eps
    def forward(self, x):
        return cawb_ext.rmsnorm_silu_mul(x.contiguous(), self.weight, self.eps)
'''),
 'softmax': dict(
  cu=r'''#include <cstdint>
#include <cfloat>
#include <cuda_runtime.h>
#define BLOCK __BLOCK__
__device__ float block_reduce(float v, bool is_max) {
    __shared__ float red[32];
    for (int k = 16; k > 0; k >>= 1) { float o = __shfl_xor_sync(0xffffffff, v, k); v = is_max ? fmaxf(v, o) : v + o; }
    if ((threadIdx.x & 31) == 0) red[threadIdx.x >> 5] = v;
    __syncthreads();
    if (threadIdx.x < 32) {
        float t = threadIdx.x < BLOCK / 32 ? red[threadIdx.x] : (is_max ? -FLT_MAX : 0.f);
        for (int k = 16; k > 0; k >>= 1) { float o = __shfl_xor_sync(0xffffffff, t, k); t = is_max ? fmaxf(t, o) : t + o; }
        if (threadIdx.x == 0) red[0] = t;
    }
    __syncthreads();
    float r = red[0];
    __syncthreads();
    return r;
}
__global__ void softmax_kernel(const float* __restrict__ x, float* __restrict__ y, int64_t D) {
    const float* xr = x + blockIdx.x * D; float* yr = y + blockIdx.x * D;
    float m = -FLT_MAX;
    for (int64_t j = threadIdx.x; j < D; j += BLOCK) m = fmaxf(m, xr[j]);
    m = block_reduce(m, true);
    float s = 0.f;
    for (int64_t j = threadIdx.x; j < D; j += BLOCK) s += __expf(xr[j] - m);
    s = block_reduce(s, false);
    float inv = 1.f / s;
    for (int64_t j = threadIdx.x; j < D; j += BLOCK) yr[j] = __expf(xr[j] - m) * inv;
}
extern "C" void softmax_launch(const float* x, float* y, int64_t rows, int64_t D, void* stream) {
    softmax_kernel<<<(unsigned)rows, BLOCK, 0, (cudaStream_t)stream>>>(x, y, D);
}
''',
  sig='extern "C" void softmax_launch(const float* x, float* y, int64_t rows, int64_t D, void* stream);',
  lean='''static void softmax_forward(cawb::Call& c) {
    const cawb::Tensor& x = c.input(0); cawb::Tensor y = c.new_output_like(x);
    int64_t D = x.size(-1);
    softmax_launch(x.data<float>(), y.data<float>(), x.numel() / D, D, c.stream());
}
CAWB_REGISTER(softmax_forward)''',
  conv='''torch::Tensor softmax_forward(torch::Tensor x) {
    auto y = torch::empty_like(x); int64_t D = x.size(-1);
    softmax_launch(x.data_ptr<float>(), y.data_ptr<float>(), x.numel() / D, D, c10::cuda::getCurrentCUDAStream().stream());
    return y;
}''',
  model='''import torch, torch.nn as nn
import cawb_ext
class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()
    def forward(self, x):
        return cawb_ext.softmax_forward(x.contiguous())
'''),
}
BLOCKS = (128, 256, 512, 1024, 384)


def conv_binding(task: str) -> str:
    k = KERNELS[task]
    fn = k['conv'].split('(')[0].split()[-1]
    return ('#include <torch/extension.h>\n#include <c10/cuda/CUDAStream.h>\n' + k['sig'] + '\n' + k['conv'] +
            f'\nPYBIND11_MODULE(TORCH_EXTENSION_NAME, m) {{ m.def("{fn}", &{fn}); }}\n')


def write_candidate(root: Path, task: str, variant: int, tag: str = '') -> Path:
    "A workdir for `task` (block-size variant `variant`) with both bindings; returns it."
    k, block = KERNELS[task], BLOCKS[variant % len(BLOCKS)]
    d = root / f"{task}_v{variant}{tag}"
    (d / 'kernels').mkdir(parents=True, exist_ok=True)
    (d / 'kernels' / f'{task}.cu').write_text(k['cu'].replace('__BLOCK__', str(block)) + f'// variant {variant}{tag}\n')
    (d / 'kernels' / f'{task}_binding.cpp').write_text(LEAN_HDR + k['sig'] + '\n' + k['lean'] + '\n')
    (d / 'conv_binding.cpp').write_text(conv_binding(task))
    (d / 'model_new.py').write_text(k['model'])
    return d
