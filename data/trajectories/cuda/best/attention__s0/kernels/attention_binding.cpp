#include "cawb_binding.h"

extern "C" void attention_launch(const float* x, const float* Wqkv, const float* bqkv, const float* Wo, const float* bo,
                                 float* qkv, float* ctx, float* y, int64_t B, int64_t T, int64_t C, int64_t H, void* stream);

// attention_forward(x, qkv.weight, qkv.bias, out.weight, out.bias, heads) -> causal multi-head self-attention block
static void attention_forward(cawb::Call& call) {
    const cawb::Tensor& x = call.input(0);
    call.check(x.dtype == cawb::kFloat32 && x.is_contiguous() && x.ndim == 3, "x must be a contiguous (B, T, C) float32 tensor");
    const int64_t B = x.size(0), T = x.size(1), C = x.size(2), H = call.integer(0);
    call.check(H > 0 && C % H == 0, "heads must divide the hidden size");
    cawb::Tensor qkv = call.new_scratch({B, T, 3 * C}, cawb::kFloat32);
    cawb::Tensor ctx = call.new_scratch({B, T, C}, cawb::kFloat32);
    cawb::Tensor y = call.new_output_like(x);
    attention_launch(x.data<float>(), call.input(1).data<float>(), call.input(2).data<float>(), call.input(3).data<float>(),
                     call.input(4).data<float>(), qkv.data<float>(), ctx.data<float>(), y.data<float>(), B, T, C, H, call.stream());
}
CAWB_REGISTER(attention_forward)
