"""Shortest-path distances on a routing lattice, drawn as a heat map per layer.

Usage: python lattice_heatmap.py [OUT.png] [--backend auto|cpu|cuda|reference]
"""
import argparse

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402

import trellis  # noqa: E402


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("out", nargs="?", default="lattice_heatmap.png")
    parser.add_argument("--backend", default="auto")
    args = parser.parse_args()
    width, height, layers = 160, 120, 2
    g = trellis.graph.routing_lattice(width, height, layers, via_cost=4, obstacle_fraction=0.2, seed=3)
    result = trellis.graph.shortest_paths(g, 0, backend=args.backend)
    distances = result.distances.reshape(layers, height, width)  # id = x + width * (y + height * layer)
    fig, axes = plt.subplots(1, layers, figsize=(5 * layers, 4))
    for layer, ax in enumerate(axes):
        image = ax.imshow(np.ma.masked_invalid(distances[layer]), origin="lower", cmap="viridis")
        ax.set_title(f"layer {layer} ({'horizontal' if layer % 2 == 0 else 'vertical'} tracks)")
    fig.colorbar(image, ax=axes, label="distance from (0, 0, 0)")
    fig.suptitle(f"{result.algorithm} on {result.backend}: {result.edges_relaxed} edges relaxed")
    fig.savefig(args.out, dpi=120, bbox_inches="tight")
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
