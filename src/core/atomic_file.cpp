#include "trellis/core/atomic_file.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <atomic>

#include <cerrno>
#include <cstring>
#include <system_error>
#include <vector>

#include "trellis/core/error.hpp"

namespace trellis {
namespace {

// A unique name beside the target (rename within one folder is atomic),
// created exclusively with the mode a plain create would give (0666 less the
// umask), so two writers never share a temporary.
std::filesystem::path make_temporary(const std::filesystem::path& target) {
  static std::atomic<unsigned> counter{0};
  for (int attempt = 0; attempt < 100; ++attempt) {
    std::filesystem::path candidate =
        target.string() + ".tmp." + std::to_string(::getpid()) + "." + std::to_string(counter++);
    int fd = ::open(candidate.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
    if (fd >= 0) {
      ::close(fd);
      return candidate;
    }
    if (errno != EEXIST) {
      throw Error("cannot create an output file beside '" + target.string() + "': " + std::strerror(errno));
    }
  }
  throw Error("cannot create a unique temporary file beside '" + target.string() + "'");
}

}  // namespace

AtomicOutputFile::AtomicOutputFile(std::filesystem::path target, bool binary)
    : target_(std::move(target)), temporary_(make_temporary(target_)) {
  out_.open(temporary_, binary ? std::ios::out | std::ios::trunc | std::ios::binary : std::ios::out | std::ios::trunc);
  if (!out_) {
    std::error_code ignored;
    std::filesystem::remove(temporary_, ignored);
    throw Error("cannot write '" + target_.string() + "'");
  }
}

AtomicOutputFile::~AtomicOutputFile() {
  if (!committed_) {
    out_.close();
    std::error_code ignored;
    std::filesystem::remove(temporary_, ignored);
  }
}

void AtomicOutputFile::commit() {
  if (committed_) return;
  out_.flush();
  bool ok = static_cast<bool>(out_);
  out_.close();
  if (!ok || out_.fail()) throw Error("writing '" + target_.string() + "' failed (disk full?)");
  std::error_code error;
  std::filesystem::rename(temporary_, target_, error);
  if (error) throw Error("cannot move the finished output into '" + target_.string() + "': " + error.message());
  committed_ = true;
}

void write_file_atomically(const std::filesystem::path& target, const std::string& contents) {
  AtomicOutputFile file(target);
  file.stream() << contents;
  file.commit();
}

}  // namespace trellis
