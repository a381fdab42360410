#include "trellis/core/progress.hpp"

#include <unistd.h>

#include <atomic>
#include <cstdio>

namespace trellis {
namespace {

std::atomic<bool> g_quiet{false};
constexpr auto kRedrawInterval = std::chrono::milliseconds(200);

}  // namespace

void Progress::set_quiet(bool quiet) noexcept { g_quiet = quiet; }
bool Progress::quiet() noexcept { return g_quiet; }

Progress::Progress(std::string label, std::uint64_t total, bool quiet)
    : label_(std::move(label)),
      total_(total),
      enabled_(!quiet && !g_quiet && ::isatty(STDERR_FILENO) == 1),
      start_(std::chrono::steady_clock::now()),
      last_draw_(start_) {}

Progress::~Progress() { finish(); }

void Progress::advance(std::uint64_t steps) { set(done_ + steps); }

void Progress::set(std::uint64_t done) {
  done_ = done;
  draw(false);
}

void Progress::finish() {
  if (finished_) return;
  finished_ = true;
  if (!enabled_) return;
  draw(true);
  std::fputc('\n', stderr);
}

void Progress::draw(bool force) {
  if (!enabled_) return;
  auto now = std::chrono::steady_clock::now();
  if (!force && now - last_draw_ < kRedrawInterval) return;
  last_draw_ = now;
  double seconds = std::chrono::duration<double>(now - start_).count();
  if (total_ > 0) {
    double percent = 100.0 * static_cast<double>(done_) / static_cast<double>(total_);
    std::fprintf(stderr, "\r%s: %llu/%llu (%.0f%%) %.1fs", label_.c_str(), static_cast<unsigned long long>(done_),
                 static_cast<unsigned long long>(total_), percent, seconds);
  } else {
    std::fprintf(stderr, "\r%s: %llu %.1fs", label_.c_str(), static_cast<unsigned long long>(done_), seconds);
  }
  std::fflush(stderr);
}

}  // namespace trellis
