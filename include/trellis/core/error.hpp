// Error types shared by every module and the CLI's exit codes.
#pragma once

#include <cstddef>
#include <stdexcept>
#include <string>

namespace trellis {

// CLI exit codes: 0 ok, 1 runtime failure, 2 usage or input error.
enum class ExitCode : int { ok = 0, runtime_failure = 1, usage_or_input = 2 };

// Base of every error trellis throws on purpose.
class Error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Malformed or unusable input. Carries the file and (1-based) line so the
// user can find the problem; line 0 means the problem is not tied to a line.
class InputError : public Error {
 public:
  InputError(std::string file, std::size_t line, const std::string& problem);
  const std::string& file() const noexcept { return file_; }
  std::size_t line() const noexcept { return line_; }
  const std::string& problem() const noexcept { return problem_; }

 private:
  std::string file_;
  std::size_t line_;
  std::string problem_;
};

// A request that cannot be served as asked (bad option value, inconsistent
// arguments). Reported like input errors.
class UsageError : public Error {
 public:
  using Error::Error;
};

// The requested backend is not compiled in or has no usable device.
class BackendUnavailable : public Error {
 public:
  using Error::Error;
};

// A CUDA call or kernel failed, or the device ran out of memory.
class DeviceError : public Error {
 public:
  using Error::Error;
};

// Maps an exception to the documented exit code.
ExitCode exit_code_for(const std::exception& error) noexcept;

}  // namespace trellis
