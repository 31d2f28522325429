#include "cawb_binding.h"

extern "C" void ln_gelu_res_launch(const float* x, const float* w, const float* b, float* y,
                                   int64_t rows, int64_t cols, float eps, void* stream);

// ln_gelu_res_forward(x, weight, bias, eps) -> x + gelu(layer_norm(x))
static void ln_gelu_res_forward(cawb::Call& call) {
    const cawb::Tensor& x = call.input(0);
    const cawb::Tensor& w = call.input(1);
    const cawb::Tensor& b = call.input(2);
    call.check(x.dtype == cawb::kFloat32 && x.is_contiguous(), "x must be a contiguous float32 tensor");
    const int64_t cols = x.size(-1);
    call.check(w.numel() == cols && b.numel() == cols, "weight/bias must match the last dimension");
    cawb::Tensor y = call.new_output_like(x);
    ln_gelu_res_launch(x.data<float>(), w.data<float>(), b.data<float>(), y.data<float>(), x.numel() / cols, cols,
                       (float)call.number(0), call.stream());
}
CAWB_REGISTER(ln_gelu_res_forward)
