// Output files that appear whole or not at all: written to a temporary file
// in the same folder and renamed over the target on commit(). Destroying an
// uncommitted file (an error was thrown) removes the temporary.
#pragma once

#include <filesystem>
#include <fstream>
#include <string>

namespace trellis {

// A file written in full under a temporary name and renamed over its target by commit().
class AtomicOutputFile {
 public:
  // Opens a temporary file next to target, in binary mode when binary is true.
  explicit AtomicOutputFile(std::filesystem::path target, bool binary = false);
  ~AtomicOutputFile();                                            // removes the temporary unless committed
  AtomicOutputFile(const AtomicOutputFile&) = delete;             // not copyable
  AtomicOutputFile& operator=(const AtomicOutputFile&) = delete;  // not copy-assignable

  // The stream to write the contents to.
  std::ostream& stream() { return out_; }
  // The path the file takes on commit().
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
