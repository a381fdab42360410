// Timers: a steady-clock stopwatch for host work and CUDA events for device
// work (device work is asynchronous, so host clocks would time the launch).
#pragma once

#include <chrono>

#include "trellis/core/stream.hpp"

struct CUevent_st;

namespace trellis {

// A stopwatch on the steady clock for host work; starts when constructed.
class SteadyTimer {
 public:
  SteadyTimer() : start_(std::chrono::steady_clock::now()) {}  // starts timing
  // Starts timing again from now.
  void restart() { start_ = std::chrono::steady_clock::now(); }
  // Milliseconds since construction or the last restart().
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
  EventTimer();                                       // creates the two events
  ~EventTimer();                                      // destroys the events
  EventTimer(const EventTimer&) = delete;             // not copyable
  EventTimer& operator=(const EventTimer&) = delete;  // not copy-assignable

  // Records the start event on stream.
  void start(Stream stream = nullptr);
  // Records the stop event on stream.
  void stop(Stream stream = nullptr);
  // Waits for the stop event, then returns the time between the two.
  double elapsed_ms() const;

 private:
  CUevent_st* start_ = nullptr;
  CUevent_st* stop_ = nullptr;
};

}  // namespace trellis
