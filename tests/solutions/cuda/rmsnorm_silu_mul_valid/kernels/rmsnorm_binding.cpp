#include "cawb_binding.h"
extern "C" void rmsnorm_silu_mul_launch(const float* x, const float* w, float* out, int64_t rows, int64_t H, float eps, void* stream);
static void rmsnorm_silu_mul(cawb::Call& call) {
    const cawb::Tensor& x = call.input(0); const cawb::Tensor& w = call.input(1);
    call.check(x.is_contiguous() && w.is_contiguous() && x.dtype == cawb::kFloat32, "contiguous float32 inputs expected");
    cawb::Tensor out = call.new_output_like(x);
    int64_t H = x.size(-1);
    rmsnorm_silu_mul_launch(x.data<float>(), w.data<float>(), out.data<float>(), x.numel() / H, H, (float)call.number(0), call.stream());
}
CAWB_REGISTER(rmsnorm_silu_mul)
