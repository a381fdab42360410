"""trellis.route against `trellis route` and `trellis drc` on the same
board: the same report (times aside), the same session file, and the
progress callback and its interruption."""

import json
import os
import shutil
import signal
import threading
from pathlib import Path

import pytest

import trellis
from trellis import route

BOARD = "pcbench/Retro1DecodingModules_AddressDecoderModule/unrouted.dsn"
KICAD_DEMO = Path("/usr/share/kicad/demos/ecc83/ecc83-pp_v2.kicad_pcb")


def without_times(value):
    if isinstance(value, dict):
        return {k: without_times(v) for k, v in value.items() if not k.endswith("seconds")}
    if isinstance(value, list):
        return [without_times(v) for v in value]
    return value


@pytest.fixture(scope="module")
def board(shared_boards):
    path = shared_boards / BOARD
    if not path.exists():
        pytest.skip(f"{path} is not here")
    return path


def test_route_equals_cli(cli, board, tmp_path):
    cli("--backend", "cpu", "route", board, "-o", tmp_path / "cli.ses", "--report", tmp_path / "cli.json",
        "--max-iterations", 20)
    lines = []
    report = route.route(board, tmp_path / "py.ses", backend="cpu", max_iterations=20, progress=lines.append)
    copper = report.pop("copper")
    assert without_times(report) == without_times(json.loads((tmp_path / "cli.json").read_text()))
    assert (tmp_path / "py.ses").read_bytes() == (tmp_path / "cli.ses").read_bytes()
    assert report["nets_routed"] == report["nets_to_route"] > 0 and report["drc"]["routing_violations"] == 0
    assert [line["iteration"] for line in lines] == [it["iteration"] for it in report["iterations"]]
    assert len(copper["wires"]) > 0 and all(len(w["points_mm"]) >= 2 for w in copper["wires"])
    assert len(copper["outline_mm"]) >= 3

    want = json.loads(cli("drc", board, tmp_path / "cli.ses", "--json").stdout)
    assert route.drc(board, tmp_path / "py.ses") == want
    assert want["unconnected_nets"] == []
    assert len(route.drc(board)["unconnected_nets"]) > 0  # the board alone is unrouted


def test_options_equal_cli(cli, board, tmp_path):
    cli("--backend", "cpu", "route", board, "--report", tmp_path / "cli.json", "--corners", 90, "--directions",
        "alternate", "--via-cost", 4, "--against-cost", 3)
    report = route.route(board, backend="cpu", corners=90, directions="alternate", via_cost=4, against_cost=3)
    report.pop("copper")
    want = json.loads((tmp_path / "cli.json").read_text())
    assert without_times(report) == without_times(want)
    assert report["mitred_corners"] == 0


def test_only_the_nets_named(cli, board, tmp_path):
    names = sorted(net["net"] for net in route.drc(board)["unconnected_nets"])[:2]
    cli("--backend", "cpu", "route", board, "--report", tmp_path / "cli.json", "--net", names[0], "--net", names[1])
    report = route.route(board, backend="cpu", nets=names)
    copper = report.pop("copper")
    assert without_times(report) == without_times(json.loads((tmp_path / "cli.json").read_text()))
    assert report["nets_to_route"] == report["nets_routed"] == 2 and report["unrouted_nets"] == []
    assert report["blocked_nets"] == []
    assert {wire["net"] for wire in copper["wires"]} == set(names)
    assert report["drc"]["routing_violations"] == 0
    with pytest.raises(trellis.UsageError, match="no net named 'nowhere'"):
        route.route(board, nets=[names[0], "nowhere"])


def test_routed_kicad_board(cli, tmp_path):
    if not KICAD_DEMO.exists():
        pytest.skip(f"{KICAD_DEMO} is not here (Debian package kicad-demos)")
    source = tmp_path / KICAD_DEMO.name
    shutil.copyfile(KICAD_DEMO, source)
    shutil.copyfile(KICAD_DEMO.with_suffix(".kicad_pro"), source.with_suffix(".kicad_pro"))
    report = route.route(source, tmp_path / "routed.kicad_pcb", backend="cpu")
    assert (tmp_path / "routed.kicad_pcb").read_text().count("(segment") > 0
    assert report["drc"]["routing_violations"] == 0


def test_progress_exception_stops_routing_and_writes_nothing(board, tmp_path):
    class Stop(Exception):
        pass

    def progress(line):
        raise Stop(line["iteration"])

    out = tmp_path / "never.ses"
    with pytest.raises(Stop):
        route.route(board, out, backend="cpu", progress=progress)
    assert not out.exists()


def test_ctrl_c_stops_routing_and_writes_nothing(board, tmp_path):
    seen = []

    def progress(line):  # Ctrl-C during the second iteration
        seen.append(line["iteration"])
        if len(seen) == 2:
            os.kill(os.getpid(), signal.SIGINT)

    out = tmp_path / "never.ses"
    with pytest.raises(KeyboardInterrupt):
        route.route(board, out, backend="cpu", progress=progress)
    assert seen == [1, 2] and not out.exists()


def test_ctrl_c_while_the_library_routes(board, tmp_path):
    # The signal comes from another thread once iteration 2 has been
    # reported, so it lands while the library routes with the GIL released
    # (or still in the callback); the routing stops at the end of the
    # iteration under way. The thread may start late on a loaded machine,
    # so a few more iterations may pass, never the whole routing.
    iterations = len(route.route(board, tmp_path / "whole.ses", backend="cpu")["iterations"])
    seen = []

    def progress(line):
        seen.append(line["iteration"])
        if len(seen) == 2:
            threading.Thread(target=lambda: os.kill(os.getpid(), signal.SIGINT)).start()

    out = tmp_path / "never.ses"
    with pytest.raises(KeyboardInterrupt):
        route.route(board, out, backend="cpu", progress=progress)
    assert seen[:2] == [1, 2] and len(seen) < iterations and not out.exists()


def test_bad_input(board, tmp_path):
    bad = tmp_path / "bad.dsn"
    bad.write_text("(pcb bad\n  (structure\n    (layer F.Cu (type signal))\n  )\n  (oops\n")
    with pytest.raises(trellis.InputError) as caught:
        route.route(bad)
    assert caught.value.file == str(bad) and caught.value.line > 0
    with pytest.raises(trellis.UsageError, match="kicad_pcb"):
        route.route(board, tmp_path / "out.kicad_pcb")
    with pytest.raises(trellis.UsageError, match="max iterations"):
        route.route(board, max_iterations=0)
    with pytest.raises(trellis.UsageError, match="pitch"):
        route.route(board, pitch_mm=-1)
    with pytest.raises(TypeError, match="frobnicate"):
        route.route(board, frobnicate=1)
    with pytest.raises(trellis.UsageError, match="corners"):
        route.route(board, corners=30)
    with pytest.raises(trellis.UsageError, match="directions"):
        route.route(board, directions="diagonal")
    assert not (tmp_path / "out.kicad_pcb").exists()
