"""The Poisson convergence study of trellis.grid, plotted: errors in the
discrete L2 and H1 norms against the mesh width on uniform and random meshes.

Usage: python poisson_convergence.py [OUT.png]
"""
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

import trellis  # noqa: E402


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else "poisson_convergence.png"
    fig, ax = plt.subplots(figsize=(6, 4.5))
    for mesh, marker in (("uniform", "o"), ("nonuniform", "s")):
        rows = trellis.grid.convergence_study("poisson", dim=2, cells=8, levels=5, mesh=mesh)
        h = [row["h"] for row in _records(rows)]
        for norm in ("error_h", "error_h1"):
            ax.loglog(h, [row[norm] for row in _records(rows)], marker=marker, label=f"{norm} ({mesh})")
    ax.loglog(h, [x * x for x in h], "k--", label="h^2")
    ax.set_xlabel("h")
    ax.set_ylabel("error")
    ax.legend(fontsize="small")
    ax.set_title("-Lap u = f on [0, 1]^2, u = exp(x + y)")
    fig.savefig(out, dpi=120, bbox_inches="tight")
    print(f"wrote {out}")


def _records(rows):
    return rows.to_dict("records") if hasattr(rows, "to_dict") else rows


if __name__ == "__main__":
    main()
