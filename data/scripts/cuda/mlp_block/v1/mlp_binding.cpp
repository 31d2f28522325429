#include "cawb_binding.h"

extern "C" void linear_launch(const float* x, const float* W, const float* b, float* y,
                              int64_t M, int64_t K, int64_t N, void* stream);

// linear_forward(x2d, weight, bias) -> x2d @ weight.T + bias
static void linear_forward(cawb::Call& call) {
    const cawb::Tensor& x = call.input(0);
    const cawb::Tensor& W = call.input(1);
    const cawb::Tensor& b = call.input(2);
    call.check(x.ndim == 2 && x.is_contiguous() && W.is_contiguous() && W.size(1) == x.size(1), "x (M, K), weight (N, K)");
    const int64_t M = x.size(0), K = x.size(1), N = W.size(0);
    cawb::Tensor y = call.new_output({M, N}, cawb::kFloat32);
    linear_launch(x.data<float>(), W.data<float>(), b.data<float>(), y.data<float>(), M, K, N, call.stream());
}
CAWB_REGISTER(linear_forward)
