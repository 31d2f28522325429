// binding.cpp (cuda-agent-wb): the module cuda_extension, with every binding registered by kernels/*_binding.cpp.
#include <pybind11/pybind11.h>
#include "binding_registry.h"

PYBIND11_MODULE(cuda_extension, m) { BindingRegistry::getInstance().applyBindings(m); }
