#include "cawb_binding.h"

extern "C" void mlp_launch(const float* x, const float* W1, const float* b1, const float* W2, const float* b2,
                           float* h, float* y, int64_t M, int64_t C, int64_t F, void* stream);

// mlp_forward(x, up.weight, up.bias, down.weight, down.bias) -> x + down(gelu(up(x)))
static void mlp_forward(cawb::Call& call) {
    const cawb::Tensor& x = call.input(0);
    const cawb::Tensor& W1 = call.input(1); const cawb::Tensor& b1 = call.input(2);
    const cawb::Tensor& W2 = call.input(3); const cawb::Tensor& b2 = call.input(4);
    call.check(x.dtype == cawb::kFloat32 && x.is_contiguous(), "x must be a contiguous float32 tensor");
    const int64_t C = x.size(-1), F = W1.size(0), M = x.numel() / C;
    call.check(W1.size(1) == C && W2.size(0) == C && W2.size(1) == F && b1.numel() == F && b2.numel() == C, "weight shapes");
    cawb::Tensor h = call.new_scratch({M, F}, cawb::kFloat32);
    cawb::Tensor y = call.new_output_like(x);
    mlp_launch(x.data<float>(), W1.data<float>(), b1.data<float>(), W2.data<float>(), b2.data<float>(), h.data<float>(),
               y.data<float>(), M, C, F, call.stream());
}
CAWB_REGISTER(mlp_forward)
