#include "trellis/core/atomic_file.hpp"

#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <system_error>
#include <vector>

#include "trellis/core/error.hpp"

namespace trellis {
namespace {

// A unique name beside the target, created by mkstemp so two writers never
// share a temporary (rename within one folder is atomic).
std::filesystem::path make_temporary(const std::filesystem::path& target) {
  std::string pattern = target.string() + ".tmp.XXXXXX";
  std::vector<char> name(pattern.begin(), pattern.end());
  name.push_back('\0');
  int fd = ::mkstemp(name.data());
  if (fd < 0) {
    throw Error("cannot create an output file beside '" + target.string() + "': " + std::strerror(errno));
  }
  ::close(fd);
  return std::filesystem::path(name.data());
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
