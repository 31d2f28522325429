#include "cawb_binding.h"

extern "C" void conv2d_launch(const float* x, const float* w, const float* bias, float* y,
                              int64_t N, int64_t Ci, int64_t H, int64_t W, int64_t Co, int64_t P, void* stream);

// conv2d_forward(x, weight, bias, padding) -> 3x3 convolution, stride 1
static void conv2d_forward(cawb::Call& call) {
    const cawb::Tensor& x = call.input(0);
    const cawb::Tensor& w = call.input(1);
    const cawb::Tensor& b = call.input(2);
    call.check(x.dtype == cawb::kFloat32 && x.ndim == 4 && x.is_contiguous() && w.is_contiguous(), "x (N, C, H, W) contiguous float32");
    call.check(w.ndim == 4 && w.size(1) == x.size(1) && w.size(2) == 3 && w.size(3) == 3, "weight must be (Co, Ci, 3, 3)");
    const int64_t N = x.size(0), Ci = x.size(1), H = x.size(2), W = x.size(3), Co = w.size(0), P = call.integer(0);
    cawb::Tensor y = call.new_output({N, Co, H + 2 * P - 2, W + 2 * P - 2}, cawb::kFloat32);
    conv2d_launch(x.data<float>(), w.data<float>(), b.data<float>(), y.data<float>(), N, Ci, H, W, Co, P, call.stream());
}
CAWB_REGISTER(conv2d_forward)
