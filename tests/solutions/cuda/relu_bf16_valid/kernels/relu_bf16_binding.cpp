#include "cawb_binding.h"
extern "C" void relu_bf16_launch(const uint16_t* x, uint16_t* y, int64_t n, void* stream);
static void relu_bf16_forward(cawb::Call& call) {
    const cawb::Tensor& x = call.input(0);
    call.check(x.dtype == cawb::kBFloat16 && x.is_contiguous() && x.device_type == 1, "x must be a contiguous bfloat16 CUDA tensor");
    cawb::Tensor y = call.new_output_like(x);
    relu_bf16_launch(x.data<uint16_t>(), y.data<uint16_t>(), x.numel(), call.stream());
}
CAWB_REGISTER(relu_bf16_forward)
