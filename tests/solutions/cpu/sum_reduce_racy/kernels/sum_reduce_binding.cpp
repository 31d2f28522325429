#include "cawb_binding.h"

extern "C" void sum_dim1_launch(const float* x, float* y, int64_t B, int64_t D1, int64_t D2, void* stream);

// sum_dim1_forward(x) -> x.sum(dim=1, keepdim=True) for a contiguous 3-D tensor
static void sum_dim1_forward(cawb::Call& call) {
    const cawb::Tensor& x = call.input(0);
    call.check(x.dtype == cawb::kFloat32 && x.is_contiguous() && x.ndim == 3, "sum_dim1_forward: x must be a contiguous 3-D float32 tensor");
    const int64_t B = x.size(0), D1 = x.size(1), D2 = x.size(2);
    cawb::Tensor y = call.new_output({B, 1, D2}, cawb::kFloat32);
    sum_dim1_launch(x.data<float>(), y.data<float>(), B, D1, D2, call.stream());
}
CAWB_REGISTER(sum_dim1_forward)
