// Named routing lattices at the sizes the benchmarks use. The seed sizes are
// exact node counts; edges follow from the lattice rules (2 track edges per
// node along the preferred direction, vias to adjacent layers).
#include <fmt/format.h>

#include <string>
#include <vector>

#include "trellis/core/error.hpp"
#include "trellis/graph/generators.hpp"

namespace trellis::graph {
namespace {

LatticeSpec layered(std::int32_t width, std::int32_t height, std::int32_t layers) {
  LatticeSpec spec;
  spec.width = width;
  spec.height = height;
  spec.layers = layers;
  return spec;
}

LatticeSpec with_any_layer_vias(LatticeSpec spec) {
  spec.any_layer_vias = true;
  return spec;
}

std::vector<LatticePreset> make_presets() {
  // No obstacles in the seed sizes: the seed's benchmark is a corner-to-corner
  // search over the whole lattice, so every node must be reachable for the
  // edge counts (and edges per second) to mean what they say.
  const std::string seed_note = "; preferred directions, adjacent-layer vias, no obstacles";
  return {
      {"seed-2k", "the seed's 2,000-node graph: 2 layers of 40 x 25" + seed_note, layered(40, 25, 2)},
      {"seed-8k", "the seed's 8,000-node graph: 4 layers of 50 x 40" + seed_note, layered(50, 40, 4)},
      {"seed-30k", "the seed's 30,000-node graph: 4 layers of 100 x 75" + seed_note, layered(100, 75, 4)},
      {"seed-60k", "the seed's 60,000-node graph: 6 layers of 125 x 80" + seed_note, layered(125, 80, 6)},
      {"seed-180k", "the seed's 180,000-node graph: 6 layers of 200 x 150" + seed_note, layered(200, 150, 6)},
      {"seed-401k",
       "the seed's largest graph (ClassAB MOSFET board, 401,800 nodes, about 1.5 M edges): 8 layers of 245 x 205" +
           seed_note,
       layered(245, 205, 8)},
      // OrthoRoute's TestBackplane is 41.9 x 93.3 mm on 18 layers; a 0.4 mm
      // pitch gives 106 x 234 nodes a layer. Vias between any two layers
      // (blind and buried) make it via-dominated: 17 via edges a node, about
      // 8.5 M edges in all. (14 M on 446,000 nodes would be 31 edges a node,
      // more than 18 layers allow: at most 17 vias + 4 tracks.)
      {"backplane",
       "OrthoRoute's TestBackplane scale: 18 layers of 106 x 234 (41.9 x 93.3 mm at 0.4 mm pitch), preferred "
       "directions, vias between any two layers, no obstacles (about 8.5 M edges)",
       with_any_layer_vias(layered(106, 234, 18))},
      // A 32-layer board (OrthoRoute's big backplanes use 32) where any-layer
      // vias give about 33 edges a node: 1.2 M nodes, about 40 M edges.
      {"board-1.2m",
       "a large 32-layer board: 32 layers of 250 x 150, preferred directions, vias between any two layers, "
       "no obstacles (about 40 M edges)",
       with_any_layer_vias(layered(250, 150, 32))},
  };
}

}  // namespace

const std::vector<LatticePreset>& lattice_presets() {
  static const std::vector<LatticePreset> presets = make_presets();
  return presets;
}

const LatticePreset& lattice_preset(const std::string& name) {
  std::string names;
  for (const LatticePreset& preset : lattice_presets()) {
    if (preset.name == name) return preset;
    names += (names.empty() ? "" : ", ") + preset.name;
  }
  throw UsageError(fmt::format("no lattice preset named '{}' (the presets are {})", name, names));
}

}  // namespace trellis::graph
