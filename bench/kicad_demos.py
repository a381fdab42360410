#!/usr/bin/python3
"""Every kicad-demos board routed from its track-less copy and judged by
KiCad's own DRC (tests/route/kicad_drc_judge.py does each board), as a
Markdown table: nets routed, the router's time, and what pcbnew's DRC finds
in the routed board and in the session imported into the track-less board.

Usage: kicad_demos.py TRELLIS [--demos DIR] [--timeout S] [--work DIR] [--only STEM ...] [--skip STEM ...]
"""
import argparse
import json
import subprocess
import sys
from pathlib import Path

JUDGE = Path(__file__).resolve().parent.parent / "tests" / "route" / "kicad_drc_judge.py"


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("trellis")
    parser.add_argument("--demos", type=Path, default=Path("/usr/share/kicad/demos"))
    parser.add_argument("--timeout", type=float, default=600)
    parser.add_argument("--work", type=Path, default=Path("kicad-demos-judged"))
    parser.add_argument("--only", nargs="*", default=[], help="board file stems to run (default: all)")
    parser.add_argument("--skip", nargs="*", default=[], help="board file stems to leave out")
    args = parser.parse_args()
    print("| board | format | nets | routed | router s | KiCad DRC, routed board: routing violations / unconnected "
          "| KiCad DRC, session imported: routing violations / unconnected | unrouted nets "
          "| pads joined by pours (islands; not seen by KiCad's refill) |")
    print("|---|---|---:|---:|---:|---|---|---|---|")
    for board in sorted(args.demos.glob("*/*.kicad_pcb")):
        if (args.only and board.stem not in args.only) or board.stem in args.skip:
            continue
        work = args.work / board.stem
        version = board.read_text(errors="replace")[:200].split("(version", 1)[1].split(")")[0].strip()
        try:
            done = subprocess.run([sys.executable, str(JUDGE), args.trellis, str(board), str(work), "--violations-only"],
                                  capture_output=True, text=True, timeout=args.timeout)
        except subprocess.TimeoutExpired:
            print(f"| {board.stem} | {version} | - | - | > {args.timeout:.0f} (stopped) | - | - | - | - |")
            continue
        lines = [json.loads(line) for line in done.stdout.splitlines() if line.startswith("{")]
        judged = [j for j in lines if j["judged"] != "pour joins"]
        pours = next((j for j in lines if j["judged"] == "pour joins"), None)
        report_path = work / f"{board.stem}.report.json"
        if len(judged) != 2 or not report_path.exists():
            last = (done.stdout + done.stderr).strip().splitlines()[-1:] or ["no output"]
            print(f"| {board.stem} | {version} | - | - | - | failed: {last[0][:80]} | - | - | - |")
            continue
        report = json.loads(report_path.read_text())
        cells = [f"{j['routing_violations']} / {j['unconnected']}" for j in judged]
        unrouted = ", ".join(report.get("unrouted_nets", [])) or "-"
        joins = report.get("pour_joins", [])
        poured = f"{sum(len(j['pads']) for j in joins)} ({len(joins)}; {pours['unseen'] if pours else '?'})"
        print(f"| {board.stem} | {version} | {report['nets_to_route']} | {report['nets_routed']} | "
              f"{report['seconds']:.2f} | {cells[0]} | {cells[1]} | {unrouted} | {poured} |", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
