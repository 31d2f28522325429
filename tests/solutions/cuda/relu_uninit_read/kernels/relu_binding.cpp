#include "cawb_binding.h"
extern "C" void relu_launch(const float* x, float* y, int64_t n, void* stream);
static void relu_forward(cawb::Call& call) {
    const cawb::Tensor& x = call.input(0);
    call.check(x.dtype == cawb::kFloat32 && x.is_contiguous() && x.device_type == 1, "x must be a contiguous float32 CUDA tensor");
    cawb::Tensor y = call.new_output_like(x);
    relu_launch(x.data<float>(), y.data<float>(), x.numel(), call.stream());
}
CAWB_REGISTER(relu_forward)
