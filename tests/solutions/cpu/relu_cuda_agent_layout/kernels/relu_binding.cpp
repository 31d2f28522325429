#include <torch/types.h>
#include <torch/csrc/utils/pybind.h>
#include "../binding_registry.h"

extern "C" void relu_launcher(float* out, const float* x, int64_t n);

static torch::Tensor relu_forward(torch::Tensor x) {
    TORCH_CHECK(x.dtype() == torch::kFloat32 && x.is_contiguous(), "x must be a contiguous float32 tensor");
    auto out = torch::empty_like(x);
    relu_launcher(out.data_ptr<float>(), x.data_ptr<float>(), x.numel());
    return out;
}

static void register_relu(pybind11::module& m) { m.def("relu_forward", &relu_forward, pybind11::arg("x")); }

REGISTER_BINDING(relu, register_relu);
