// Stand-ins for the CUDA runtime in a build without CUDA: discovery finds
// nothing and every device operation says how to get one.
#include "trellis/core/backend.hpp"
#include "trellis/core/device.hpp"
#include "trellis/core/error.hpp"
#include "trellis/core/timer.hpp"

namespace trellis {
namespace {

[[noreturn]] void unavailable() {
  throw BackendUnavailable(
      "this build of trellis has no CUDA support (rebuild with the CUDA toolkit installed, or -DTRELLIS_CUDA=ON)");
}

}  // namespace

bool cuda_compiled() noexcept { return false; }

std::vector<DeviceInfo> list_devices(std::string* reason) {
  if (reason != nullptr) *reason = "built without CUDA";
  return {};
}

DeviceInfo current_device() { unavailable(); }

namespace device {

void* allocate(std::size_t) { unavailable(); }
void release(void*) noexcept {}
void* allocate_pinned(std::size_t) { unavailable(); }
void* try_allocate_pinned(std::size_t) noexcept { return nullptr; }
void release_pinned(void*) noexcept {}
void copy_to_device(void*, const void*, std::size_t, Stream) { unavailable(); }
void copy_to_host(void*, const void*, std::size_t, Stream) { unavailable(); }
void copy_on_device(void*, const void*, std::size_t, Stream) { unavailable(); }
void fill_zero(void*, std::size_t, Stream) { unavailable(); }
void synchronize(Stream) { unavailable(); }
void synchronize_device() { unavailable(); }
void set_current(int) { unavailable(); }
OwnedStream::OwnedStream(StreamPriority) { unavailable(); }
OwnedStream::~OwnedStream() = default;

}  // namespace device

EventTimer::EventTimer() { unavailable(); }
EventTimer::~EventTimer() = default;
void EventTimer::start(Stream) { unavailable(); }
void EventTimer::stop(Stream) { unavailable(); }
double EventTimer::elapsed_ms() const { unavailable(); }

}  // namespace trellis
