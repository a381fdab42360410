// Error types shared by every module and the CLI's exit codes.
#pragma once

#include <cstddef>
#include <stdexcept>
#include <string>

namespace trellis {

// CLI exit codes: 0 ok, 1 runtime failure, 2 usage or input error.
enum class ExitCode : int {
  ok = 0,               // success
  runtime_failure = 1,  // a runtime failure
  usage_or_input = 2    // a usage or input error
};

// Base of every error trellis throws on purpose.
class Error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Malformed or unusable input. Carries the file and (1-based) line so the
// user can find the problem; line 0 means the problem is not tied to a line.
class InputError : public Error {
 public:
  // An error in file at line (1-based; 0 for none) described by problem.
  InputError(std::string file, std::size_t line, const std::string& problem);
  // The file the problem is in.
  const std::string& file() const noexcept { return file_; }
  // The 1-based line, or 0 when the problem is not tied to a line.
  std::size_t line() const noexcept { return line_; }
  // What is wrong, without the file and line.
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
