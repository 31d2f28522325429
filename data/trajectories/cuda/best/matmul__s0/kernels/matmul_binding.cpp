#include "cawb_binding.h"

extern "C" void matmul_launch(const float* A, const float* B, float* C, int64_t N, void* stream);

// matmul_forward(A, B) -> A @ B for square float32 matrices
static void matmul_forward(cawb::Call& call) {
    const cawb::Tensor& A = call.input(0);
    const cawb::Tensor& B = call.input(1);
    call.check(A.dtype == cawb::kFloat32 && B.dtype == cawb::kFloat32 && A.is_contiguous() && B.is_contiguous(), "A, B must be contiguous float32");
    call.check(A.ndim == 2 && B.ndim == 2 && A.size(0) == A.size(1) && B.size(0) == A.size(1) && B.size(1) == A.size(1), "A, B must be square and the same size");
    const int64_t N = A.size(0);
    cawb::Tensor C = call.new_output({N, N}, cawb::kFloat32);
    matmul_launch(A.data<float>(), B.data<float>(), C.data<float>(), N, call.stream());
}
CAWB_REGISTER(matmul_forward)
