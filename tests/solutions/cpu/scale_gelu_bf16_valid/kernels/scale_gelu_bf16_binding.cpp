#include "cawb_binding.h"
extern "C" void scale_gelu_bf16_launch(const uint16_t* x, uint16_t* y, int64_t n, float scale);
static void scale_gelu_bf16_forward(cawb::Call& call) {
    const cawb::Tensor& x = call.input(0);
    call.check(x.dtype == cawb::kBFloat16 && x.is_contiguous(), "x must be a contiguous bfloat16 tensor");
    cawb::Tensor y = call.new_output_like(x);
    scale_gelu_bf16_launch(x.data<uint16_t>(), y.data<uint16_t>(), x.numel(), (float)call.number(0));
}
CAWB_REGISTER(scale_gelu_bf16_forward)
