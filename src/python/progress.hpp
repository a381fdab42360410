// Progress reports and Ctrl-C for long calls that run with the GIL released
// (route, align, batched shortest paths, the solvers): each report takes the
// GIL back, turns a pending Ctrl-C into KeyboardInterrupt, and calls the
// Python callback; either exception leaves as nb::python_error, which
// unwinds the library call and arrives in Python as raised.
#pragma once

#include <Python.h>
#include <nanobind/nanobind.h>

#include <utility>

namespace trellis::python {

// Call with the GIL released. progress may be None (then only Ctrl-C is
// checked). Returns false when the callback returned False (a request to
// stop), true otherwise.
template <typename... Args>
bool report_progress(const nanobind::object& progress, Args&&... args) {
  nanobind::gil_scoped_acquire acquire;
  if (PyErr_CheckSignals() != 0) throw nanobind::python_error();  // Ctrl-C
  if (progress.is_none()) return true;
  const nanobind::object answer = progress(std::forward<Args>(args)...);
  return !answer.is(nanobind::handle(Py_False));
}

}  // namespace trellis::python
