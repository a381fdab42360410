"""Routes a board with trellis and draws the routes with matplotlib.

Usage: python routed_board.py BOARD.dsn|BOARD.kicad_pcb [OUT.png]
"""
import sys
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

import trellis  # noqa: E402


def main():
    board = sys.argv[1]
    out = sys.argv[2] if len(sys.argv) > 2 else "routed_board.png"
    report = trellis.route.route(board, progress=lambda it: print(
        f"iteration {it['iteration']}: {it['overused_nodes']} overused nodes", file=sys.stderr))
    copper = report["copper"]
    layers = sorted({wire["layer"] for wire in copper["wires"]})
    colours = dict(zip(layers, plt.cm.tab10.colors))
    fig, ax = plt.subplots(figsize=(8, 6))
    outline = copper["outline_mm"]
    if outline:
        xs, ys = zip(*(outline + outline[:1]))
        ax.plot(xs, ys, color="black", linewidth=0.8)
    for wire in copper["wires"]:
        xs, ys = zip(*wire["points_mm"])
        ax.plot(xs, ys, color=colours[wire["layer"]], linewidth=max(wire["width_mm"] * 2, 0.5), solid_capstyle="round")
    for via in copper["vias"]:
        ax.plot(via["x_mm"], via["y_mm"], "o", color="grey", markersize=3)
    for layer in layers:
        ax.plot([], [], color=colours[layer], label=layer)
    ax.legend(loc="upper right", fontsize="small")
    ax.set_aspect("equal")
    ax.set_title(f"{Path(board).name}: {report['nets_routed']} of {report['nets_to_route']} nets, "
                 f"{report['wire_length_mm']:.0f} mm, {report['vias']} vias")
    ax.set_xlabel("mm")
    fig.savefig(out, dpi=150, bbox_inches="tight")
    print(f"wrote {out}")


if __name__ == "__main__":
    main()
