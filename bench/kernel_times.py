#!/usr/bin/env python3
"""Per-kernel device time from an ncu CSV, as a Markdown table.

Usage: ncu --metrics gpu__time_duration.sum --csv PROGRAM ... > run.csv
       bench/kernel_times.py run.csv [--after NAME]

Sums gpu__time_duration.sum over the launches of each kernel (name up to
its first parenthesis, template arguments kept) and grid size, largest
first. --after NAME counts only launches from the first kernel whose name
contains NAME, in any case, on (say, the first smoothing step: the
iterations, not the setup). ncu serialises the kernels and flushes the caches between them, so
the times are each kernel's alone, not the run's.
"""
import argparse
import collections
import csv
import sys

_SCALE_TO_MS = {"ns": 1e-6, "nsecond": 1e-6, "us": 1e-3, "usecond": 1e-3, "ms": 1.0, "msecond": 1.0}


def read_launches(path):
    launches = []
    header = None
    with open(path, newline="", encoding="utf-8", errors="replace") as f:
        for row in csv.reader(f):
            if row and row[0] == "ID":
                header = row
                continue
            if header is None or len(row) != len(header):
                continue
            fields = dict(zip(header, row))
            if fields.get("Metric Name") != "gpu__time_duration.sum":
                continue
            unit = fields["Metric Unit"]
            if unit not in _SCALE_TO_MS:
                sys.exit(f"{path}: unknown time unit '{unit}' for launch {fields['ID']}")
            value = float(fields["Metric Value"].replace(",", ""))
            launches.append((fields["Kernel Name"], fields["Grid Size"], value * _SCALE_TO_MS[unit]))
    if header is None:
        sys.exit(f"{path}: no ncu CSV header (a line starting with \"ID\")")
    return launches


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("csv")
    parser.add_argument("--after", default=None)
    args = parser.parse_args()
    launches = read_launches(args.csv)
    if args.after is not None:
        first = next((i for i, (name, _, _) in enumerate(launches) if args.after.lower() in name.lower()), None)
        if first is None:
            sys.exit(f"{args.csv}: no kernel named like '{args.after}'")
        launches = launches[first:]
    totals = collections.defaultdict(lambda: [0, 0.0])
    for name, grid, ms in launches:
        key = (name.split("(")[0].strip(), grid)
        totals[key][0] += 1
        totals[key][1] += ms
    print("| kernel | grid | launches | ms | ms a launch |")
    print("|---|---|---:|---:|---:|")
    for (name, grid), (count, ms) in sorted(totals.items(), key=lambda item: -item[1][1]):
        print(f"| `{name}` | {grid} | {count} | {ms:.3f} | {ms / count:.4f} |")
    print(f"\n{len(launches)} launches, {sum(ms for _, _, ms in launches):.3f} ms in all")


if __name__ == "__main__":
    main()
