// binding_registry.h (cuda-agent-wb): kernels/*_binding.cpp register pybind11 bindings; binding.cpp applies them.
#pragma once
#include <functional>
#include <string>
#include <utility>
#include <vector>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

class BindingRegistry {
public:
    using Binder = std::function<void(pybind11::module&)>;
    static BindingRegistry& getInstance() { static BindingRegistry registry; return registry; }
    void registerBinding(const std::string& name, Binder fn) { entries_.emplace_back(name, std::move(fn)); }
    void applyBindings(pybind11::module& m) { for (auto& entry : entries_) entry.second(m); }
private:
    std::vector<std::pair<std::string, Binder>> entries_;
};

struct BindingRegistrar {
    BindingRegistrar(const std::string& name, BindingRegistry::Binder fn) { BindingRegistry::getInstance().registerBinding(name, std::move(fn)); }
};

#define REGISTER_BINDING(name, fn) static BindingRegistrar cawb_registrar_##name(#name, [](pybind11::module& m) { fn(m); })
