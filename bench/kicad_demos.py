#!/usr/bin/python3
"""Every kicad-demos board routed from its track-less copy and judged by
KiCad's own DRC (tests/route/kicad_drc_judge.py does each board), as a
Markdown table: nets routed, the router's time, and what pcbnew's DRC finds
in the routed board and in the session imported into the track-less board.

Usage: kicad_demos.py TRELLIS [--demos DIR] [--timeout S] [--work DIR]
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
    args = parser.parse_args()
    print("| board | format | nets | routed | router s | KiCad DRC, routed board: routing violations / unconnected "
          "| KiCad DRC, session imported: routing violations / unconnected | unrouted nets |")
    print("|---|---|---:|---:|---:|---|---|---|")
    for board in sorted(args.demos.glob("*/*.kicad_pcb")):
        work = args.work / board.stem
        version = board.read_text(errors="replace")[:200].split("(version", 1)[1].split(")")[0].strip()
        try:
            done = subprocess.run([sys.executable, str(JUDGE), args.trellis, str(board), str(work), "--violations-only"],
                                  capture_output=True, text=True, timeout=args.timeout)
        except subprocess.TimeoutExpired:
            print(f"| {board.stem} | {version} | - | - | > {args.timeout:.0f} (stopped) | - | - | - |")
            continue
        judged = [json.loads(line) for line in done.stdout.splitlines() if line.startswith("{")]
        report_path = work / f"{board.stem}.report.json"
        if len(judged) != 2 or not report_path.exists():
            last = (done.stdout + done.stderr).strip().splitlines()[-1:] or ["no output"]
            print(f"| {board.stem} | {version} | - | - | - | failed: {last[0][:80]} | - | - |")
            continue
        report = json.loads(report_path.read_text())
        cells = [f"{j['routing_violations']} / {j['unconnected']}" for j in judged]
        unrouted = ", ".join(report.get("unrouted_nets", [])) or "-"
        print(f"| {board.stem} | {version} | {report['nets_to_route']} | {report['nets_routed']} | "
              f"{report['seconds']:.2f} | {cells[0]} | {cells[1]} | {unrouted} |", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
