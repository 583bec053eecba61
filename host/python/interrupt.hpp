// Long library calls from Python (a study, a calibration, a calibration model's batch) that Ctrl-C
// can stop: the call runs on a thread of its own while the caller's waits with the GIL released
// (host/python/module.cpp installs stop_requested as the library's cancellation hook, io/cancel.hpp).
#pragma once
#include <pybind11/pybind11.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <exception>
#include <memory>
#include <mutex>
#include <thread>

#include "io/cancel.hpp"

namespace impact::python {

// A study (or a calibration) is one long library call. It runs on a thread of its own while the caller's thread waits
// with the GIL released and checks for signals every kPollInterval (Python runs signal handlers on
// the main thread only, and the study's laws may run on a second thread of the study: the waiting
// thread is the one that can see them). When the handler raises (Ctrl-C: KeyboardInterrupt), the
// study is asked to stop through the library's cancellation hook (io/cancel.hpp, installed when the
// module is imported), which its run checks between pieces of about a thousand instances (a
// calibration and a calibration model: between the model's pieces of rows, calibrate/model.hpp,
// and after each step of the sampler); the run unwinds through its uncommitted OutFiles (no table, no metadata, no temporary is left) and
// the handler's exception is raised here. The report phase after the run (statistics, Sobol
// indices, plots) is not interrupted: it finishes, and the exception is raised after it.
inline constexpr auto kPollInterval = std::chrono::milliseconds(20);
inline std::atomic<int> g_stops{0};  // studies being stopped; a stop reaches every study in the process
inline std::mutex g_stops_mu;        // g_stops and io's stop flag change together
inline bool stop_requested() { return g_stops.load(std::memory_order_relaxed) > 0; }

template <class F>
void run_interruptible(F work) {
  namespace py = pybind11;
  std::mutex mu;
  std::condition_variable cv;
  bool done = false;
  std::exception_ptr failed;
  std::thread worker([&] {
    try {
      work();
    } catch (...) { failed = std::current_exception(); }
    std::lock_guard<std::mutex> lock(mu);
    done = true;
    cv.notify_one();
  });
  std::unique_ptr<py::error_already_set> interrupt;  // the signal handler's exception
  for (bool finished = false; !finished;) {
    {
      py::gil_scoped_release nogil;
      std::unique_lock<std::mutex> lock(mu);
      finished = cv.wait_for(lock, kPollInterval, [&] { return done; });
    }
    if (!finished && !interrupt && PyErr_CheckSignals() != 0) {
      interrupt = std::make_unique<py::error_already_set>();  // fetches it; nothing here throws
      const std::lock_guard<std::mutex> stops(g_stops_mu);
      g_stops.fetch_add(1);
      io::raise_stop_flag(true);  // the integrators' instances end at their next poll (engine::stoppable)
    }
  }
  worker.join();  // done: returns at once
  if (interrupt) {
    {
      const std::lock_guard<std::mutex> stops(g_stops_mu);  // lowered only when no stop is pending
      if (g_stops.fetch_sub(1) == 1) io::raise_stop_flag(false);
    }
    throw *interrupt;
  }
  if (!failed) return;
  try {
    std::rethrow_exception(failed);
  } catch (const io::Cancelled&) {  // stopped by an interrupt of another study running in this process
    PyErr_SetString(PyExc_KeyboardInterrupt, "study stopped by an interrupt of another study in this process");
    throw py::error_already_set();
  }
}

}  // namespace impact::python
