// impactbatch._core's device-array entry points (host/python/device.cpp): DeviceArray, dlpack_view,
// evaluate_device, has_cuda_build.
#pragma once
#include <pybind11/pybind11.h>

namespace impact::python {

void bind_device(pybind11::module_& m);

}  // namespace impact::python
