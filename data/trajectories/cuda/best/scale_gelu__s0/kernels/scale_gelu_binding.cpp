#include "cawb_binding.h"

extern "C" void scale_gelu_launch(const float* x, float* y, int64_t n, float scale, void* stream);

// scale_gelu_forward(x, scale) -> gelu_tanh(x * scale)
static void scale_gelu_forward(cawb::Call& call) {
    const cawb::Tensor& x = call.input(0);
    call.check(x.dtype == cawb::kFloat32 && x.is_contiguous(), "scale_gelu_forward: x must be a contiguous float32 tensor");
    cawb::Tensor y = call.new_output_like(x);
    scale_gelu_launch(x.data<float>(), y.data<float>(), x.numel(), (float)call.number(0), call.stream());
}
CAWB_REGISTER(scale_gelu_forward)
