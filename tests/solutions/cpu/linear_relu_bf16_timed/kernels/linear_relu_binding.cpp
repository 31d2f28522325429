#include "cawb_binding.h"
extern "C" void linear_relu_launch(const float* x, const float* w, const float* b, float* y, int64_t M, int64_t K, int64_t N);
extern "C" void linear_relu_bf16_launch(const float* x, const float* w, const float* b, float* y, int64_t M, int64_t K, int64_t N);
static cawb::Tensor run(cawb::Call& call, bool bf16) {
    const cawb::Tensor& x = call.input(0); const cawb::Tensor& w = call.input(1); const cawb::Tensor& b = call.input(2);
    call.check(x.is_contiguous() && w.is_contiguous() && b.is_contiguous(), "inputs must be contiguous");
    cawb::Tensor y = call.new_output({x.size(0), w.size(0)}, cawb::kFloat32);
    (bf16 ? linear_relu_bf16_launch : linear_relu_launch)(x.data<float>(), w.data<float>(), b.data<float>(), y.data<float>(), x.size(0), x.size(1), w.size(0));
    return y;
}
static void linear_relu_forward(cawb::Call& call) { run(call, false); }
static void linear_relu_forward_bf16(cawb::Call& call) { run(call, true); }
CAWB_REGISTER(linear_relu_forward)
CAWB_REGISTER(linear_relu_forward_bf16)
