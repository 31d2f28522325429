#include "cawb_binding.h"

extern "C" void conv_bn_relu_launch(const float* x, const float* w, const float* bias, const float* gamma, const float* beta,
                                    const float* running_mean, const float* running_var, float* y,
                                    int64_t N, int64_t Ci, int64_t H, int64_t W, int64_t Co, float eps, void* stream);

// conv_bn_relu_forward(x, conv.weight, conv.bias, bn.weight, bn.bias, bn.running_mean, bn.running_var, eps)
static void conv_bn_relu_forward(cawb::Call& call) {
    const cawb::Tensor& x = call.input(0);
    const cawb::Tensor& w = call.input(1);
    call.check(x.dtype == cawb::kFloat32 && x.ndim == 4 && x.is_contiguous(), "x must be a contiguous (N, C, H, W) float32 tensor");
    call.check(w.ndim == 4 && w.size(1) == x.size(1) && w.size(2) == 3 && w.size(3) == 3, "conv weight must be (Co, Ci, 3, 3)");
    const int64_t N = x.size(0), Ci = x.size(1), H = x.size(2), W = x.size(3), Co = w.size(0);
    cawb::Tensor y = call.new_output({N, Co, H, W}, cawb::kFloat32);
    conv_bn_relu_launch(x.data<float>(), w.data<float>(), call.input(2).data<float>(), call.input(3).data<float>(),
                        call.input(4).data<float>(), call.input(5).data<float>(), call.input(6).data<float>(), y.data<float>(),
                        N, Ci, H, W, Co, (float)call.number(0), call.stream());
}
CAWB_REGISTER(conv_bn_relu_forward)
