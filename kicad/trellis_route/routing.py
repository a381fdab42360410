"""Routes a board open in KiCad's PCB editor with the trellis CLI and puts
the routes into it. No wx here, so this runs headless (the tests call it
under the system python3 with pcbnew).

The open board is written to a temporary folder (through KiCad's board
writer, never to the user's file or project), routed there by
`trellis route` into a routed copy, and the tracks and vias that copy has
beyond the open board's are added to the open board. Inside KiCad's action
plugin framework those additions (and, without keep_existing, the removal
of the old tracks) form one undoable step.
"""

import json
import os
import shutil
import subprocess
import tempfile
from pathlib import Path

import pcbnew


class RoutingError(Exception):
    """trellis could not route the board; the message says why."""


def find_trellis(explicit=None):
    """The trellis executable: the one given, $TRELLIS, one beside this
    plugin (bin/trellis), or trellis on PATH."""
    candidates = [explicit, os.environ.get("TRELLIS"), str(Path(__file__).with_name("bin") / "trellis"),
                  shutil.which("trellis")]
    for candidate in candidates:
        if candidate and Path(candidate).is_file() and os.access(candidate, os.X_OK):
            return candidate
    raise RoutingError("the trellis executable was not found: set TRELLIS to its path or put it on PATH")


def _io(name):
    # KiCad 6 and 7 call the board I/O manager IO_MGR, KiCad 8 PCB_IO_MGR.
    manager = getattr(pcbnew, "PCB_IO_MGR", None) or pcbnew.IO_MGR
    return manager, getattr(manager, name)


def save_copy(board, path):
    """Writes the board as it is in memory to path, without touching the
    board's own file or the open project."""
    manager, save = _io("Save")
    save(manager.KICAD_SEXP, str(path), board)
    project = Path(board.GetFileName()).with_suffix(".kicad_pro") if board.GetFileName() else None
    if project and project.exists():
        shutil.copyfile(project, Path(path).with_suffix(".kicad_pro"))


def load_copy(path):
    manager, load = _io("Load")
    return load(manager.KICAD_SEXP, str(path))


def _is_via(item):
    return item.GetClass() in ("PCB_VIA", "VIA")


def _key(item):
    if _is_via(item):
        p = item.GetPosition()
        return ("via", p.x, p.y, item.GetNetname())
    s, e = item.GetStart(), item.GetEnd()
    ends = tuple(sorted(((s.x, s.y), (e.x, e.y))))
    return ("track", ends, item.GetLayer(), item.GetWidth(), item.GetNetname())


def _copy_into(board, item):
    net = board.FindNet(item.GetNetname())
    if _is_via(item):
        via = pcbnew.PCB_VIA(board)
        via.SetPosition(item.GetPosition())
        via.SetWidth(item.GetWidth())
        via.SetDrill(item.GetDrillValue())
        via.SetViaType(item.GetViaType())
        via.SetLayerPair(item.TopLayer(), item.BottomLayer())
        copy = via
    else:
        copy = pcbnew.PCB_TRACK(board)
        copy.SetStart(item.GetStart())
        copy.SetEnd(item.GetEnd())
        copy.SetWidth(item.GetWidth())
        copy.SetLayer(item.GetLayer())
    if net is not None:
        copy.SetNet(net)
    board.Add(copy)
    return copy


def selected_nets(board):
    """Names of the nets of the selected pads, tracks, vias and footprints' pads."""
    names = set()
    for item in list(board.GetTracks()) + [pad for fp in board.GetFootprints() for pad in fp.Pads()]:
        if item.IsSelected() and item.GetNetname():
            names.add(item.GetNetname())
    for footprint in board.GetFootprints():
        if footprint.IsSelected():
            names.update(pad.GetNetname() for pad in footprint.Pads() if pad.GetNetname())
    return names


def route_board(board, *, trellis=None, backend="auto", max_iterations=50, keep_existing=True, nets=None,
                progress=None):
    """Routes `board` (a pcbnew.BOARD) and adds the routes to it. Returns the
    routing report (trellis route --report) with "tracks_added",
    "vias_added" and "tracks_removed". With `nets` (names), trellis routes
    only those nets (trellis route --net), the others' tracks staying in the
    way, and only their tracks are removed without keep_existing.
    progress(line) gets every progress line trellis
    prints. Raises RoutingError with trellis's message when it fails; the
    board is unchanged then."""
    wanted = None if nets is None else set(nets)
    executable = find_trellis(trellis)
    with tempfile.TemporaryDirectory(prefix="trellis-route-") as folder:
        work = Path(folder)
        unrouted, routed, report_path = work / "board.kicad_pcb", work / "routed.kicad_pcb", work / "report.json"
        removed = []
        if not keep_existing:
            removed = [t for t in board.GetTracks() if wanted is None or t.GetNetname() in wanted]
            for track in removed:
                board.Remove(track)
        try:
            save_copy(board, unrouted)
            command = [executable, "--backend", backend, "route", str(unrouted), "-o", str(routed),
                       "--report", str(report_path), "--max-iterations", str(int(max_iterations))]
            for name in sorted(wanted or ()):
                command += ["--net", name]
            process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
            lines = []
            for line in process.stderr:
                lines.append(line.rstrip("\n"))
                if progress:
                    progress(lines[-1])
            if process.wait() != 0:
                message = " ".join(line for line in lines[-3:] if line.strip()) or "no message"
                raise RoutingError(f"trellis route failed (exit {process.returncode}): {message}")
            new_board = load_copy(routed)
        except BaseException:
            for track in removed:  # put back what was taken out
                board.Add(track)
            raise
        existing = {_key(item) for item in board.GetTracks()}
        added_tracks = added_vias = 0
        for item in new_board.GetTracks():
            if _key(item) in existing or (wanted is not None and item.GetNetname() not in wanted):
                continue
            _copy_into(board, item)
            if _is_via(item):
                added_vias += 1
            else:
                added_tracks += 1
        report = json.loads(report_path.read_text())
    report.update(tracks_added=added_tracks, vias_added=added_vias, tracks_removed=len(removed))
    return report
