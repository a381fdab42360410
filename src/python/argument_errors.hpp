// Arrays from Python that the library refuses are the caller's argument
// errors: the library's plain Error becomes UsageError (a ValueError there).
#pragma once

#include "trellis/core/error.hpp"

namespace trellis::python {

template <typename F>
void as_usage_error(F&& check) {
  try {
    check();
  } catch (const UsageError&) {
    throw;
  } catch (const Error& error) {
    throw UsageError(error.what());
  }
}

}  // namespace trellis::python
