#include "cawb_binding.h"

extern "C" void rmsnorm_silu_mul_launch(const float* x, const float* w, float* out, int64_t rows, int64_t cols,
                                        float eps, void* stream);

// rmsnorm_silu_mul_forward(x, weight, eps) -> silu(y) * y with y = RMSNorm(x) * weight
static void rmsnorm_silu_mul_forward(cawb::Call& call) {
    const cawb::Tensor& x = call.input(0);
    const cawb::Tensor& w = call.input(1);
    call.check(x.dtype == cawb::kFloat32 && x.is_contiguous(), "x must be a contiguous float32 tensor");
    const int64_t cols = x.size(-1);
    call.check(w.numel() == cols && w.is_contiguous(), "weight must match the last dimension");
    cawb::Tensor out = call.new_output_like(x);
    rmsnorm_silu_mul_launch(x.data<float>(), w.data<float>(), out.data<float>(), x.numel() / cols, cols,
                            (float)call.number(0), call.stream());
}
CAWB_REGISTER(rmsnorm_silu_mul_forward)
