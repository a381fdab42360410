// Opens libvulkan.so.1 with dlopen and fetches the entry points the backend
// uses.
#include "core/vulkan/loader.hpp"

#include <dlfcn.h>
#include <fmt/format.h>

#include <mutex>

#include "trellis/core/error.hpp"

namespace trellis::vk {
namespace {

std::mutex& table_mutex() {
  static std::mutex mutex;
  return mutex;
}

Functions& table() {
  static Functions functions;
  return functions;
}

}  // namespace

const Functions& global_functions() {
  std::lock_guard lock(table_mutex());
  Functions& f = table();
  if (f.vkGetInstanceProcAddr != nullptr) return f;
  // Left open for the life of the process: drivers keep threads and
  // callbacks that must not be unloaded under them.
  void* library = dlopen("libvulkan.so.1", RTLD_NOW | RTLD_LOCAL);
  if (library == nullptr) {
    throw BackendUnavailable("the Vulkan loader libvulkan.so.1 was not found (Debian: libvulkan1)");
  }
  auto get = reinterpret_cast<PFN_vkGetInstanceProcAddr>(dlsym(library, "vkGetInstanceProcAddr"));
  if (get == nullptr) throw BackendUnavailable("libvulkan.so.1 has no vkGetInstanceProcAddr");
#define TRELLIS_VK_LOAD(name)                                        \
  f.name = reinterpret_cast<PFN_##name>(get(VK_NULL_HANDLE, #name)); \
  if (f.name == nullptr) throw BackendUnavailable("the Vulkan loader lacks " #name " (Vulkan 1.1 is needed)");
  TRELLIS_VK_GLOBAL_FUNCTIONS(TRELLIS_VK_LOAD)
#undef TRELLIS_VK_LOAD
  f.vkGetInstanceProcAddr = get;
  return f;
}

const Functions& load_instance_functions(VkInstance instance) {
  global_functions();
  std::lock_guard lock(table_mutex());
  Functions& f = table();
  if (f.vkQueueSubmit != nullptr) return f;
  Functions loaded = f;
#define TRELLIS_VK_LOAD(name)                                                           \
  loaded.name = reinterpret_cast<PFN_##name>(f.vkGetInstanceProcAddr(instance, #name)); \
  if (loaded.name == nullptr) throw BackendUnavailable("the Vulkan instance lacks " #name " (Vulkan 1.1 is needed)");
  TRELLIS_VK_INSTANCE_FUNCTIONS(TRELLIS_VK_LOAD)
#undef TRELLIS_VK_LOAD
  f = loaded;
  return f;
}

const Functions& functions() { return table(); }

std::string result_name(VkResult result) {
  switch (result) {
    case VK_SUCCESS:
      return "VK_SUCCESS";
    case VK_NOT_READY:
      return "VK_NOT_READY";
    case VK_TIMEOUT:
      return "VK_TIMEOUT";
    case VK_INCOMPLETE:
      return "VK_INCOMPLETE";
    case VK_ERROR_OUT_OF_HOST_MEMORY:
      return "VK_ERROR_OUT_OF_HOST_MEMORY";
    case VK_ERROR_OUT_OF_DEVICE_MEMORY:
      return "VK_ERROR_OUT_OF_DEVICE_MEMORY";
    case VK_ERROR_INITIALIZATION_FAILED:
      return "VK_ERROR_INITIALIZATION_FAILED";
    case VK_ERROR_DEVICE_LOST:
      return "VK_ERROR_DEVICE_LOST";
    case VK_ERROR_MEMORY_MAP_FAILED:
      return "VK_ERROR_MEMORY_MAP_FAILED";
    case VK_ERROR_LAYER_NOT_PRESENT:
      return "VK_ERROR_LAYER_NOT_PRESENT";
    case VK_ERROR_EXTENSION_NOT_PRESENT:
      return "VK_ERROR_EXTENSION_NOT_PRESENT";
    case VK_ERROR_FEATURE_NOT_PRESENT:
      return "VK_ERROR_FEATURE_NOT_PRESENT";
    case VK_ERROR_INCOMPATIBLE_DRIVER:
      return "VK_ERROR_INCOMPATIBLE_DRIVER";
    case VK_ERROR_TOO_MANY_OBJECTS:
      return "VK_ERROR_TOO_MANY_OBJECTS";
    case VK_ERROR_FORMAT_NOT_SUPPORTED:
      return "VK_ERROR_FORMAT_NOT_SUPPORTED";
    case VK_ERROR_OUT_OF_POOL_MEMORY:
      return "VK_ERROR_OUT_OF_POOL_MEMORY";
    default:
      return fmt::format("VkResult {}", static_cast<int>(result));
  }
}

void check(VkResult result, const char* call, const char* file, int line) {
  if (result >= 0) return;
  throw DeviceError(fmt::format("{} failed with {} at {}:{}", call, result_name(result), file, line));
}

}  // namespace trellis::vk
