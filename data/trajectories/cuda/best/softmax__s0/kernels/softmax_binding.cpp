#include "cawb_binding.h"

extern "C" void softmax_launch(const float* x, float* y, int64_t rows, int64_t cols, void* stream);

// softmax_forward(x) -> softmax over the last dimension of a 2-D tensor
static void softmax_forward(cawb::Call& call) {
    const cawb::Tensor& x = call.input(0);
    call.check(x.dtype == cawb::kFloat32 && x.is_contiguous() && x.ndim == 2, "softmax_forward: x must be a contiguous 2-D float32 tensor");
    cawb::Tensor y = call.new_output_like(x);
    softmax_launch(x.data<float>(), y.data<float>(), x.size(0), x.size(1), call.stream());
}
CAWB_REGISTER(softmax_forward)
