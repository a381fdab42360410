// Progress on stderr for long work. Silent unless stderr is a terminal and
// the user did not ask for --quiet, so logs and pipes stay clean.
#pragma once

#include <chrono>
#include <cstdint>
#include <string>

namespace trellis {

// A progress line on stderr (percentage when the total is known), drawn only on a terminal without --quiet.
class Progress {
 public:
  // total 0 means unknown (a counter without a percentage).
  Progress(std::string label, std::uint64_t total, bool quiet);
  ~Progress();                                    // prints the final line (finish())
  Progress(const Progress&) = delete;             // not copyable
  Progress& operator=(const Progress&) = delete;  // not copy-assignable

  // Counts steps more as done.
  void advance(std::uint64_t steps = 1);
  // Sets the number of steps done.
  void set(std::uint64_t done);
  void finish();  // prints the final line; called by the destructor too
  // True when the progress line is drawn (stderr is a terminal, not quiet).
  bool enabled() const noexcept { return enabled_; }

  // Process-wide quiet switch set by the CLI's --quiet.
  static void set_quiet(bool quiet) noexcept;
  // The process-wide quiet switch.
  static bool quiet() noexcept;

 private:
  void draw(bool force);

  std::string label_;
  std::uint64_t total_;
  std::uint64_t done_ = 0;
  bool enabled_;
  bool finished_ = false;
  std::chrono::steady_clock::time_point start_;
  std::chrono::steady_clock::time_point last_draw_;
};

}  // namespace trellis
