"""KiCad action plugin "Route with trellis" (KiCad 6 to 8, pcbnew's Python
API). Copy this folder into KiCad's scripting plugin folder
(`trellis kicad-plugin install` does), with trellis on PATH or $TRELLIS set."""

import pcbnew

from .plugin import TrellisRoutePlugin

TrellisRoutePlugin().register()
