// PNG output in builds without cairo: SVG is always available instead.
#include "trellis/core/error.hpp"
#include "trellis/route/render.hpp"

namespace trellis::route {

bool png_available() noexcept { return false; }

void write_png(const Board&, const RoutedCopper&, const std::filesystem::path&, const RenderOptions&) {
  throw UsageError("trellis was built without cairo (PNG output); use SVG");
}

}  // namespace trellis::route
