// The library's errors as Python exceptions:
//   trellis.Error (Exception)                   every error trellis raises on purpose
//   trellis.InputError (Error, ValueError)      malformed input; .file, .line, .problem
//   trellis.UsageError (Error, ValueError)      an option or argument that cannot be served
//   trellis.BackendUnavailable (Error, RuntimeError)
//   trellis.DeviceError (Error, RuntimeError)
#include <Python.h>
#include <nanobind/nanobind.h>

#include <exception>

#include "bindings.hpp"
#include "trellis/core/error.hpp"

namespace nb = nanobind;

namespace trellis::python {
namespace {

struct ErrorTypes {
  PyObject* error = nullptr;
  PyObject* input = nullptr;
  PyObject* usage = nullptr;
  PyObject* backend = nullptr;
  PyObject* device = nullptr;
};

ErrorTypes types;

PyObject* new_type(nb::module_& m, const char* name, PyObject* bases, const char* doc) {
  const std::string qualified = std::string("trellis.") + name;
  PyObject* type = PyErr_NewExceptionWithDoc(qualified.c_str(), doc, bases, nullptr);
  if (type == nullptr) throw nb::python_error();
  m.attr(name) = nb::handle(type);
  return type;
}

void raise(PyObject* type, const std::exception& error) { PyErr_SetString(type, error.what()); }

void translate(const std::exception_ptr& pointer, void*) {
  try {
    std::rethrow_exception(pointer);
  } catch (const InputError& error) {
    nb::object instance = nb::steal(PyObject_CallOneArg(types.input, nb::str(error.what()).ptr()));
    if (!instance.is_valid()) return;  // the call has set its own error
    instance.attr("file") = nb::str(error.file().c_str());
    instance.attr("line") = nb::int_(error.line());
    instance.attr("problem") = nb::str(error.problem().c_str());
    PyErr_SetObject(types.input, instance.ptr());
  } catch (const UsageError& error) {
    raise(types.usage, error);
  } catch (const BackendUnavailable& error) {
    raise(types.backend, error);
  } catch (const DeviceError& error) {
    raise(types.device, error);
  } catch (const Error& error) {
    raise(types.error, error);
  }
}

}  // namespace

void bind_errors(nb::module_& m) {
  types.error = new_type(m, "Error", PyExc_Exception, "Base of every error trellis raises on purpose.");
  nb::object value_bases = nb::make_tuple(nb::handle(types.error), nb::handle(PyExc_ValueError));
  nb::object runtime_bases = nb::make_tuple(nb::handle(types.error), nb::handle(PyExc_RuntimeError));
  types.input =
      new_type(m, "InputError", value_bases.ptr(),
               "Malformed or unusable input; .file, .line (1-based, 0: the whole file) and .problem say where "
               "and what.");
  types.usage = new_type(m, "UsageError", value_bases.ptr(), "An argument or option that cannot be served as asked.");
  types.backend = new_type(m, "BackendUnavailable", runtime_bases.ptr(),
                           "The backend asked for is not compiled in or has no usable device.");
  types.device = new_type(m, "DeviceError", runtime_bases.ptr(), "A CUDA call or kernel failed.");
  nb::register_exception_translator(&translate);
}

}  // namespace trellis::python
