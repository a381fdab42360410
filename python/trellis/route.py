"""PCB routing and design-rule checks on Specctra DSN or KiCad boards.

``route(board, out=...)`` routes every net with two or more pins and returns
the report ``trellis route --report`` writes (lattice, iterations, unrouted
nets, wire length, vias, the design-rule check's counts, warnings) as a
dict, plus ``copper``: the routed wires (layer, net, width, points in mm),
vias and the board outline, for drawing. ``out`` may be a Specctra session
(.ses) or, for a .kicad_pcb input, a routed copy of the board; it is written
whole or not at all. ``progress`` is called with a dict after every
iteration; an exception it raises, or Ctrl-C, stops the routing there and
writes nothing.

``drc(board, session=None)`` returns ``trellis drc --json``'s report.
"""

from __future__ import annotations

import json
import os
from typing import Callable, Optional

from . import _native


def route(board, out=None, *, backend: str = "auto", progress: Optional[Callable[[dict], None]] = None,
          **options) -> dict:
    """Routes the board; `options` are trellis route's, with underscores:
    max_iterations, pitch_mm (0: from the board's rules), via_cost, corners
    (45 or 90), directions ("board", "alternate", "none"), against_cost,
    pour_cost, present_factor_growth, history_factor, batch_size,
    nets_apart, device_round_min, concurrent_nets,
    concurrency_follows_overuse, overuse_per_concurrent_net, cleanup_passes,
    cleanup_via_cost, exact_stub_claims, neck_down_width_mm (negative: the
    board's rule; 0: none), nets (names of the nets to route; empty: every
    net); the CLI's defaults."""
    settings = _native.route.RouteSettings()
    for name, value in options.items():
        if not hasattr(settings, name) or name.startswith("_"):
            raise TypeError(f"route() got an unknown option {name!r}")
        setattr(settings, name, value)
    return json.loads(_native.route.route(os.fspath(board), "" if out is None else os.fspath(out), backend, settings,
                                          progress))


def drc(board, session=None) -> dict:
    return json.loads(_native.route.drc(os.fspath(board), None if session is None else os.fspath(session)))
