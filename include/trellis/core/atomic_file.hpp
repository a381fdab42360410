// Output files that appear whole or not at all: written to a temporary file
// in the same folder and renamed over the target on commit(). Destroying an
// uncommitted file (an error was thrown) removes the temporary.
#pragma once

#include <filesystem>
#include <fstream>
#include <string>

namespace trellis {

class AtomicOutputFile {
 public:
  explicit AtomicOutputFile(std::filesystem::path target, bool binary = false);
  ~AtomicOutputFile();
  AtomicOutputFile(const AtomicOutputFile&) = delete;
  AtomicOutputFile& operator=(const AtomicOutputFile&) = delete;

  std::ostream& stream() { return out_; }
  const std::filesystem::path& target() const noexcept { return target_; }

  // Flushes, checks for write errors and renames into place. Throws Error if
  // anything failed; the target is then untouched.
  void commit();

 private:
  std::filesystem::path target_;
  std::filesystem::path temporary_;
  std::ofstream out_;
  bool committed_ = false;
};

// Convenience: writes text atomically.
void write_file_atomically(const std::filesystem::path& target, const std::string& contents);

}  // namespace trellis
