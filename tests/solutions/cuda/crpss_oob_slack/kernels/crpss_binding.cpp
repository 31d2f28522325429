#include "cawb_binding.h"

extern "C" void crpss_launch(const float* x, const float* w, const float* bias, float* conv, float* out,
                             int64_t N, int64_t Ci, int64_t H, int64_t W, int64_t Co, void* stream);

// crpss_forward(x, conv.weight, conv.bias) -> sigmoid(max_pool2d(relu(conv3x3(x)), 2)).sum(dim=1)
static void crpss_forward(cawb::Call& call) {
    const cawb::Tensor& x = call.input(0);
    const cawb::Tensor& w = call.input(1);
    call.check(x.dtype == cawb::kFloat32 && x.ndim == 4 && x.is_contiguous(), "x must be a contiguous (N, C, H, W) float32 tensor");
    call.check(w.ndim == 4 && w.size(1) == x.size(1) && w.size(2) == 3 && w.size(3) == 3, "conv weight must be (Co, Ci, 3, 3)");
    const int64_t N = x.size(0), Ci = x.size(1), H = x.size(2), W = x.size(3), Co = w.size(0);
    cawb::Tensor conv = call.new_scratch({N, Co, H - 2, W - 2}, cawb::kFloat32);
    cawb::Tensor out = call.new_output({N, (H - 2) / 2, (W - 2) / 2}, cawb::kFloat32);
    crpss_launch(x.data<float>(), w.data<float>(), call.input(2).data<float>(), conv.data<float>(), out.data<float>(),
                 N, Ci, H, W, Co, call.stream());
}
CAWB_REGISTER(crpss_forward)
