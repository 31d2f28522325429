#include "cawb_binding.h"

extern "C" void mssm_launch(const float* a, const float* b, float* s, float* out,
                            int64_t batch, int64_t M, int64_t K, int64_t N, float scale, void* stream);

// mssm_forward(a, b, scale) -> softmax(bmm(a, b) * scale, dim=-1).mean(dim=1)
static void mssm_forward(cawb::Call& call) {
    const cawb::Tensor& a = call.input(0);
    const cawb::Tensor& b = call.input(1);
    call.check(a.dtype == cawb::kFloat32 && b.dtype == cawb::kFloat32 && a.is_contiguous() && b.is_contiguous(), "a, b must be contiguous float32");
    call.check(a.ndim == 3 && b.ndim == 3 && a.size(0) == b.size(0) && a.size(2) == b.size(1), "a (B, M, K) and b (B, K, N)");
    const int64_t B = a.size(0), M = a.size(1), K = a.size(2), N = b.size(2);
    cawb::Tensor s = call.new_scratch({B, M, N}, cawb::kFloat32);
    cawb::Tensor out = call.new_output({B, N}, cawb::kFloat32);
    mssm_launch(a.data<float>(), b.data<float>(), s.data<float>(), out.data<float>(), B, M, K, N, (float)call.number(0), call.stream());
}
CAWB_REGISTER(mssm_forward)
