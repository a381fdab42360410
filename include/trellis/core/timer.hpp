// Timers: a steady-clock stopwatch for host work and CUDA events for device
// work (device work is asynchronous, so host clocks would time the launch).
#pragma once

#include <chrono>

#include "trellis/core/stream.hpp"

struct CUevent_st;

namespace trellis {

class SteadyTimer {
 public:
  SteadyTimer() : start_(std::chrono::steady_clock::now()) {}
  void restart() { start_ = std::chrono::steady_clock::now(); }
  double elapsed_ms() const {
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start_).count();
  }

 private:
  std::chrono::steady_clock::time_point start_;
};

// A pair of CUDA events recorded on a stream. Throws BackendUnavailable in a
// build without CUDA.
class EventTimer {
 public:
  EventTimer();
  ~EventTimer();
  EventTimer(const EventTimer&) = delete;
  EventTimer& operator=(const EventTimer&) = delete;

  void start(Stream stream = nullptr);
  void stop(Stream stream = nullptr);
  // Waits for the stop event, then returns the time between the two.
  double elapsed_ms() const;

 private:
  CUevent_st* start_ = nullptr;
  CUevent_st* stop_ = nullptr;
};

}  // namespace trellis
