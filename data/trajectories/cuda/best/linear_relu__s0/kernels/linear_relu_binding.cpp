#include "cawb_binding.h"

extern "C" void linear_relu_launch(const float* x, const float* W, const float* b, float* y,
                                   int64_t M, int64_t K, int64_t N, void* stream);

// linear_relu_forward(x, weight, bias) -> relu(x @ weight.T + bias); weight is (out_features, in_features)
static void linear_relu_forward(cawb::Call& call) {
    const cawb::Tensor& x = call.input(0);
    const cawb::Tensor& W = call.input(1);
    const cawb::Tensor& b = call.input(2);
    call.check(x.dtype == cawb::kFloat32 && x.ndim == 2 && x.is_contiguous(), "x must be a contiguous 2-D float32 tensor");
    call.check(W.ndim == 2 && W.size(1) == x.size(1) && W.is_contiguous() && b.numel() == W.size(0), "weight/bias shapes");
    const int64_t M = x.size(0), K = x.size(1), N = W.size(0);
    cawb::Tensor y = call.new_output({M, N}, cawb::kFloat32);
    linear_relu_launch(x.data<float>(), W.data<float>(), b.data<float>(), y.data<float>(), M, K, N, call.stream());
}
CAWB_REGISTER(linear_relu_forward)
