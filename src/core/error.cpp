#include "trellis/core/error.hpp"

#include <string_view>

namespace trellis {
namespace {

std::string describe(const std::string& file, std::size_t line, const std::string& problem) {
  std::string message;
  message.append(file.empty() ? std::string_view("<input>") : std::string_view(file));
  if (line > 0) message.append(":").append(std::to_string(line));
  message.append(": ").append(problem);
  return message;
}

}  // namespace

InputError::InputError(std::string file, std::size_t line, const std::string& problem)
    : Error(describe(file, line, problem)), file_(std::move(file)), line_(line), problem_(problem) {}

ExitCode exit_code_for(const std::exception& error) noexcept {
  if (dynamic_cast<const InputError*>(&error) != nullptr || dynamic_cast<const UsageError*>(&error) != nullptr ||
      dynamic_cast<const BackendUnavailable*>(&error) != nullptr) {
    return ExitCode::usage_or_input;
  }
  return ExitCode::runtime_failure;
}

}  // namespace trellis
