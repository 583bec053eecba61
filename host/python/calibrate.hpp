// impactbatch._core's calibration entry points (host/python/calibrate.cpp): CalibrateRequest,
// calibrate (impact calibrate's run) and CalibrationModel (the model's log densities on points
// that Python hands over, for emcee, pyABC or any sampler).
#pragma once
#include <pybind11/pybind11.h>

namespace impact::python {

void bind_calibrate(pybind11::module_& m);

}  // namespace impact::python
