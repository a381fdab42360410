#!/usr/bin/python3
"""The KiCad plugin's routing, headless under the system python3 with
KiCad 6's pcbnew: pic_programmer with its tracks removed is routed by
kicad/trellis_route/routing.py into the loaded board, which must then pass
KiCad's own DRC (zones refilled) with every pad connected; the board's file
on disk is never written; without keep_existing the old tracks are replaced;
failures leave the board as it was. Exit 0 when all hold, 1 otherwise, 77
when pcbnew or the demo board is missing (ctest: skipped).

Usage: plugin_test.py TRELLIS WORKDIR
"""
import hashlib
import importlib.util
import shutil
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
DEMO = Path("/usr/share/kicad/demos/pic_programmer/pic_programmer.kicad_pcb")
JUDGE = ROOT / "tests" / "route" / "kicad_drc_judge.py"


def load(name, path):
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def judge_step(step, *paths):
    subprocess.run([sys.executable, str(JUDGE), "--step", step, *map(str, paths)], check=True, capture_output=True)


def digest(path):
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()


def kicad_drc_clean(judge, routing, board, work, name, violations_only=False):
    """Saves the board, runs KiCad's DRC on it (zones refilled); True when
    clean (and, unless violations_only, with every pad connected)."""
    saved = work / f"{name}.kicad_pcb"
    routing.save_copy(board, saved)
    report = work / f"{name}.drc.rpt"
    judge_step("drc", saved, report)
    return judge.judge(name, judge.parse_report(report.read_text()), [], violations_only) == 0


def main():
    trellis, work = sys.argv[1], Path(sys.argv[2])
    try:
        import pcbnew
    except ImportError:
        print("skipped: pcbnew (Debian package kicad) is not installed")
        return 77
    if not DEMO.exists():
        print(f"skipped: {DEMO} is not here (Debian package kicad-demos)")
        return 77
    shutil.rmtree(work, ignore_errors=True)
    work.mkdir(parents=True)
    routing = load("trellis_route_routing", ROOT / "kicad" / "trellis_route" / "routing.py")
    judge = load("kicad_drc_judge", JUDGE)
    failures = []

    def check(condition, what):
        print(("ok: " if condition else "FAIL: ") + what)
        if not condition:
            failures.append(what)

    stripped = work / "pic_programmer.kicad_pcb"
    judge_step("strip", DEMO, stripped)
    shutil.copyfile(DEMO.with_suffix(".kicad_pro"), stripped.with_suffix(".kicad_pro"))
    before = digest(stripped)
    files_before = sorted(p.name for p in work.iterdir())

    board = pcbnew.LoadBoard(str(stripped))
    check(len(board.GetTracks()) == 0, "the stripped board has no tracks")
    try:
        routing.route_board(board, trellis=trellis, backend="tpu")
        check(False, "a bad backend is refused")
    except routing.RoutingError as error:
        check("tpu" in str(error), f"a bad backend is refused with trellis's message ({error})")
    check(len(board.GetTracks()) == 0, "a failed routing leaves the board unchanged")

    lines = []
    report = routing.route_board(board, trellis=trellis, backend="cpu", progress=lines.append)
    check(report["nets_routed"] == report["nets_to_route"] > 0, f"every net routed ({report['nets_routed']})")
    check(report["tracks_added"] > 0 and report["tracks_added"] + report["vias_added"] == len(board.GetTracks()),
          f"{report['tracks_added']} tracks and {report['vias_added']} vias added to the open board")
    check(any("iteration" in line for line in lines), "progress lines reached the callback")
    check(digest(stripped) == before and sorted(p.name for p in work.iterdir()) == files_before,
          "nothing was written beside the board")
    check(kicad_drc_clean(judge, routing, board, work, "routed"), "KiCad's DRC finds the routed board clean")

    again = pcbnew.LoadBoard(str(DEMO))
    old = len(again.GetTracks())
    report = routing.route_board(again, trellis=trellis, backend="cpu", keep_existing=False)
    check(report["tracks_removed"] == old > 0, f"without keep_existing the {old} old tracks are removed")
    check(kicad_drc_clean(judge, routing, again, work, "rerouted"), "KiCad's DRC finds the rerouted board clean")
    # Only the selected nets: two nets' pads selected, only their routes added.
    partial = pcbnew.LoadBoard(str(stripped))
    pads = [pad for fp in partial.GetFootprints() for pad in fp.Pads() if pad.GetNetname()]
    counts = {}
    for pad in pads:
        counts[pad.GetNetname()] = counts.get(pad.GetNetname(), 0) + 1
    chosen = sorted(name for name, n in counts.items() if n >= 3)[:2]
    for pad in pads:
        if pad.GetNetname() in chosen:
            pad.SetSelected()
    check(routing.selected_nets(partial) == set(chosen), f"the selection's nets are {chosen}")
    report = routing.route_board(partial, trellis=trellis, backend="cpu", nets=routing.selected_nets(partial))
    added = {t.GetNetname() for t in partial.GetTracks()}
    check(report["nets_to_route"] == len(chosen), f"trellis routed the {len(chosen)} selected nets alone")
    check(report["tracks_added"] > 0 and added == set(chosen), f"only the selected nets got routes ({sorted(added)})")
    check(kicad_drc_clean(judge, routing, partial, work, "selected", violations_only=True),
          "KiCad's DRC finds no violation with the selected nets routed")
    found = judge.parse_report((work / "selected.drc.rpt").read_text())
    still_open = [item for u in found["unconnected"] for item in u["items"]
                  if any(f"[{name}]" in item for name in chosen)]
    check(found["unconnected"] and not still_open, "the selected nets are connected, other nets are not")

    # The plugin as KiCad loads it: the package registers the action (headless,
    # pcbnew notes that no editor is running) and names it.
    sys.path.insert(0, str(ROOT / "kicad"))
    import trellis_route
    action = trellis_route.plugin.TrellisRoutePlugin()
    action.defaults()
    check(action.name == "Route with trellis", "the action plugin loads and names itself")
    print(f"{len(failures)} failures")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
