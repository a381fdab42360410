#!/usr/bin/python3
"""KiCad's own DRC as the judge of a routing.

Takes a KiCad board, removes its tracks and vias (the copy KiCad saves is
what trellis routes), routes it with `trellis route` twice, once written as
a routed .kicad_pcb and once as a Specctra session whose wires and vias are
then put into the track-less board as KiCad's session importer would
(KiCad 6's importer needs its editor window, so this script does what it
does: a track per path segment of the path's width on the layer of that
name, y negated, and a via of its padstack's circle diameter through its
padstack's layers with the Default class's drill). Each result gets its
zones refilled as KiCad's DRC dialog does, pcbnew's DRC, and the findings
summed by type. Exits 0 when the routed board has no violation of the
kinds routing can cause (clearance, holes, board edge, shorts, track and via
sizes) and no unconnected pads beyond those named with --allow-unconnected
(a pad its own rules leave unroutable), or any with --violations-only (a
board the router does not complete yet), and every connection the router
left to a copper pour (the report's pour_joins) one that KiCad's refill of
the routed board makes (the pads in one island of the zone's fill); 1
otherwise; 77 when pcbnew cannot
be imported (KiCad is not installed), which ctest reports as skipped.

Usage: kicad_drc_judge.py TRELLIS BOARD.kicad_pcb WORKDIR [--allow-unconnected REF-PAD ...] [--violations-only]
"""
import argparse
import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

# Violation types (KiCad's DRC error keys) that routing can cause.
ROUTING_KINDS = {
    "clearance", "hole_clearance", "hole_near_hole", "copper_edge_clearance", "edge_clearance",
    "tracks_crossing", "shorting_items", "track_width", "via_diameter", "annular_width",
    "drill_out_of_range", "microvia_drill_out_of_range", "track_dangling", "via_dangling",
}


def parse_report(text):
    """KiCad's DRC report as {'violations': [...], 'unconnected': [...]}, each a
    dict with the type, the message and the items' lines."""
    sections = {"violations": [], "unconnected": []}
    current = None
    entry = None
    for line in text.splitlines():
        if line.startswith("** Found") and "DRC violations" in line:
            current = "violations"
        elif line.startswith("** Found") and "unconnected pads" in line:
            current = "unconnected"
        elif line.startswith("** "):
            current = None
        elif current and (match := re.match(r"\[(\w+)\]: (.*)", line)):
            entry = {"type": match.group(1), "message": match.group(2), "items": []}
            sections[current].append(entry)
        elif current and entry and line.strip().startswith("@("):
            entry["items"].append(line.strip())
    return sections


def strip_tracks(pcbnew, source, target):
    board = pcbnew.LoadBoard(str(source))
    for track in list(board.GetTracks()):
        board.Delete(track)
    board.Save(str(target))


def kicad_drc(pcbnew, board_path, report_path):
    board = pcbnew.LoadBoard(str(board_path))
    pcbnew.ZONE_FILLER(board).Fill(board.Zones())
    if not pcbnew.WriteDRCReport(board, str(report_path), pcbnew.EDA_UNITS_MILLIMETRES, True):
        raise RuntimeError(f"pcbnew could not write the DRC report of {board_path}")


def sexpr(text):
    """A Specctra file as nested lists of atoms (quotes removed)."""
    tokens = re.findall(r'"[^"]*"|\(|\)|[^\s()]+', text)
    stack = [[]]
    for token in tokens:
        if token == "(":
            stack.append([])
        elif token == ")":
            done = stack.pop()
            stack[-1].append(done)
        else:
            stack[-1].append(token.strip('"'))
    return stack[0][0]


def children(node, keyword):
    return [item for item in node if isinstance(item, list) and item and item[0] == keyword]


def import_session(pcbnew, source, session, target):
    board = pcbnew.LoadBoard(str(source))
    routes = children(sexpr(Path(session).read_text()), "routes")[0]
    unit, per_unit = children(routes, "resolution")[0][1:3]
    nm_per = {"um": 1000.0, "mm": 1e6, "mil": 25400.0, "inch": 25.4e6, "cm": 1e7}[unit] / float(per_unit)

    def to_iu(x, y):  # KiCad's internal unit is the nanometre
        return pcbnew.wxPoint(int(round(float(x) * nm_per)), int(round(-float(y) * nm_per)))

    layer_ids = {board.GetLayerName(layer): layer for layer in board.GetEnabledLayers().CuStack()}
    default_drill = board.GetDesignSettings().GetCurrentViaDrill()  # the Default class's
    padstacks = {}
    for library in children(routes, "library_out"):
        for padstack in children(library, "padstack"):
            shapes = [shape for item in children(padstack, "shape") for shape in item[1:] if isinstance(shape, list)]
            padstacks[padstack[1]] = shapes
    for network in children(routes, "network_out"):
        for net in children(network, "net"):
            netinfo = board.FindNet(net[1])
            for wire in children(net, "wire"):
                for path in children(wire, "path"):
                    layer, width, coords = path[1], float(path[2]) * nm_per, path[3:]
                    points = [to_iu(coords[i], coords[i + 1]) for i in range(0, len(coords) - 1, 2)]
                    for start, end in zip(points, points[1:]):
                        track = pcbnew.PCB_TRACK(board)
                        track.SetStart(start)
                        track.SetEnd(end)
                        track.SetWidth(int(round(width)))
                        track.SetLayer(layer_ids[layer])
                        track.SetNet(netinfo)
                        board.Add(track)
            for via_list in children(net, "via"):
                name, x, y = via_list[1:4]
                shapes = padstacks[name]
                layers = sorted(layer_ids[shape[1]] for shape in shapes)
                via = pcbnew.PCB_VIA(board)
                via.SetPosition(to_iu(x, y))
                via.SetWidth(int(round(max(float(shape[2]) for shape in shapes) * nm_per)))
                via.SetDrill(default_drill)
                via.SetLayerPair(layers[0], layers[-1])
                all_copper = len(shapes) == len(layer_ids)
                via.SetViaType(pcbnew.VIATYPE_THROUGH if all_copper else pcbnew.VIATYPE_BLIND_BURIED)
                via.SetNet(netinfo)
                board.Add(via)
    board.Save(str(target))


def pour_check(pcbnew, board_path, report_path, out_path):
    """Whether KiCad's refill makes every connection trellis left to a pour:
    for each pour join of the routing report, the pads' shape centres must
    lie in one island of their net's refilled zone on that layer. Writes
    {"pour_joins": N, "unseen": [...]} to out_path."""
    board = pcbnew.LoadBoard(str(board_path))
    pcbnew.ZONE_FILLER(board).Fill(board.Zones())
    pads = {}
    for footprint in board.GetFootprints():
        seen = {}
        for pad in footprint.Pads():
            # Named as trellis names pins: a repeated or empty number gets
            # "@k" (KiCad's Specctra export); holes without copper are no pins.
            if pad.GetAttribute() == pcbnew.PAD_ATTRIB_NPTH or not pad.IsOnCopperLayer():
                continue
            number = pad.GetNumber()
            seen[number] = seen.get(number, 0) + 1
            name = (f"@{seen[number]}" if not number else
                    number if seen[number] == 1 else f"{number}@{seen[number] - 1}")
            pads[f"{footprint.GetReference()}-{name}"] = pad
    islands = []
    for zone in board.Zones():
        for layer in zone.GetLayerSet().Seq():
            polys = zone.GetFilledPolysList(layer)
            islands += [(zone.GetNetname(), layer, polys, i) for i in range(polys.OutlineCount())]
    joins = json.loads(Path(report_path).read_text()).get("pour_joins", [])
    unseen = []
    for join in joins:
        layer = board.GetLayerID(join["layer"])
        common = None
        for name in join["pads"]:
            at = pads[name].ShapePos()
            inside = {k for k, (net, on, polys, i) in enumerate(islands)
                      if net == join["net"] and on == layer and polys.Contains(pcbnew.VECTOR2I(at.x, at.y), i)}
            common = inside if common is None else common & inside
        if not common:
            unseen.append(join)
    Path(out_path).write_text(json.dumps({"pour_joins": len(joins), "unseen": unseen}))


def in_subprocess(step, *paths):
    """Runs one pcbnew step in a process of its own: pcbnew keeps global
    state between boards, and its bindings print leak notices on exit."""
    done = subprocess.run([sys.executable, __file__, "--step", step, *map(str, paths)],
                          capture_output=True, text=True)
    if done.returncode != 0:
        sys.stderr.write(done.stdout + done.stderr)
        raise RuntimeError(f"pcbnew's {step} of {paths[0]} failed")


def main():
    if len(sys.argv) > 1 and sys.argv[1] == "--step":
        import pcbnew
        step, paths = sys.argv[2], sys.argv[3:]
        {"strip": strip_tracks, "drc": kicad_drc, "import": import_session, "pours": pour_check}[step](pcbnew, *paths)
        return 0
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("trellis")
    parser.add_argument("board", type=Path)
    parser.add_argument("workdir", type=Path)
    parser.add_argument("--allow-unconnected", nargs="*", default=[])
    parser.add_argument("--violations-only", action="store_true")
    args = parser.parse_args()
    try:
        import pcbnew  # noqa: F401 (only whether it imports)
    except ImportError:
        print("skipped: pcbnew (Debian package kicad) is not installed")
        return 77
    if not args.board.exists():
        print(f"skipped: {args.board} is not here (Debian package kicad-demos)")
        return 77
    work = args.workdir
    shutil.rmtree(work, ignore_errors=True)
    work.mkdir(parents=True)
    stem = args.board.stem
    unrouted = work / f"{stem}.kicad_pcb"
    routed = work / f"{stem}.routed.kicad_pcb"
    project = args.board.with_suffix(".kicad_pro")
    in_subprocess("strip", args.board, unrouted)
    for beside in (unrouted, routed):
        if project.exists():
            shutil.copyfile(project, beside.with_suffix(".kicad_pro"))
    subprocess.run([args.trellis, "--quiet", "route", str(unrouted), "-o", str(routed),
                    "--report", str(work / f"{stem}.report.json")], check=True)
    session = work / f"{stem}.ses"
    imported = work / f"{stem}.imported.kicad_pcb"
    subprocess.run([args.trellis, "--quiet", "route", str(unrouted), "-o", str(session)], check=True)
    in_subprocess("import", unrouted, session, imported)
    if project.exists():
        shutil.copyfile(project, imported.with_suffix(".kicad_pro"))
    failures = 0
    for name, board in (("routed board", routed), ("session imported", imported)):
        report = board.with_suffix(".drc.rpt")
        in_subprocess("drc", board, report)
        failures += judge(name, parse_report(report.read_text()), args.allow_unconnected, args.violations_only)
    # Every connection the router left to a pour must be one KiCad's refill makes.
    pours = work / f"{stem}.pours.json"
    in_subprocess("pours", routed, work / f"{stem}.report.json", pours)
    checked = json.loads(pours.read_text())
    print(json.dumps({"judged": "pour joins", "pour_joins": checked["pour_joins"], "unseen": len(checked["unseen"])}))
    for join in checked["unseen"]:
        print(f"[pour_join_unseen] {join['net']} on {join['layer']}: {' '.join(join['pads'])}")
    failures += 1 if checked["unseen"] else 0
    return 1 if failures else 0


def judge(name, found, allowed, violations_only):
    """Prints what KiCad found; returns whether it fails the routing."""
    by_kind = {}
    for violation in found["violations"]:
        by_kind[violation["type"]] = by_kind.get(violation["type"], 0) + 1
    routing = [v for v in found["violations"] if v["type"] in ROUTING_KINDS]
    unexpected_unconnected = [
        u for u in found["unconnected"]
        if not violations_only and not any(re.search(rf"\bPad {re.escape(pad.split('-', 1)[1])}\b.*\bof {re.escape(pad.split('-', 1)[0])}\b", item)
                   for item in u["items"] for pad in allowed)]
    summary = {"judged": name, "violations_by_type": by_kind, "routing_violations": len(routing),
               "unconnected": len(found["unconnected"]), "unexpected_unconnected": len(unexpected_unconnected)}
    print(json.dumps(summary))
    for violation in routing + unexpected_unconnected:
        print(f"[{violation['type']}] {violation['message']}")
        for item in violation["items"]:
            print(f"    {item}")
    return 0 if not routing and not unexpected_unconnected else 1


if __name__ == "__main__":
    sys.exit(main())
