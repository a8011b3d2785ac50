#!/usr/bin/env python3
"""Draws the seed paper's Figure 7 for our runs: log10 mean completion time vs log10 n.

Reads the CSV of `cargo bench --bench table2 -- --csv FILE` (plus optional extra rows
"n,mean_s" from --extra, e.g. the 1e9 command-line run) and writes an SVG, with the paper's
Table 2 means for comparison. No dependencies beyond Python's standard library.

Usage: tools/plot_table2.py RESULTS.csv OUT.svg [--extra 1000000000,58.2]
"""
import csv, math, sys

PAPER = {1e3: 0.062, 1e4: 0.321, 1e5: 2.25, 1e6: 11.4, 1e7: 61.4, 1e8: 508}


def main():
    args = sys.argv[1:]
    if len(args) < 2:
        sys.exit(__doc__)
    src, out = args[0], args[1]
    ours = {}
    with open(src) as f:
        for row in csv.DictReader(f):
            ours[float(row["n"])] = (float(row["mean_s"]), float(row["t90_mean_s"]))
    if "--extra" in args:
        for item in args[args.index("--extra") + 1].split(";"):
            n, t = item.split(",")
            ours[float(n)] = (float(t), float(t))
    W, H, L, R, T, B = 720, 480, 70, 20, 40, 60
    xs = [math.log10(n) for n in list(ours) + list(PAPER)]
    ys = [math.log10(max(v, 1e-7)) for pair in ours.values() for v in pair] + [math.log10(v) for v in PAPER.values()]
    x0, x1 = math.floor(min(xs)), math.ceil(max(xs))
    y0, y1 = math.floor(min(ys)), math.ceil(max(ys))
    sx = lambda x: L + (x - x0) / (x1 - x0) * (W - L - R)
    sy = lambda y: H - B - (y - y0) / (y1 - y0) * (H - T - B)
    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{W}" height="{H}" font-family="sans-serif" font-size="12">',
             f'<rect width="{W}" height="{H}" fill="white"/>',
             f'<text x="{W / 2}" y="22" text-anchor="middle" font-size="15">Completion time of random compositions (k uniform in 1..n-1)</text>']
    for x in range(x0, x1 + 1):
        parts.append(f'<line x1="{sx(x)}" y1="{T}" x2="{sx(x)}" y2="{H - B}" stroke="#ddd"/>')
        parts.append(f'<text x="{sx(x)}" y="{H - B + 18}" text-anchor="middle">1e{x}</text>')
    for y in range(y0, y1 + 1):
        parts.append(f'<line x1="{L}" y1="{sy(y)}" x2="{W - R}" y2="{sy(y)}" stroke="#ddd"/>')
        parts.append(f'<text x="{L - 8}" y="{sy(y) + 4}" text-anchor="end">1e{y} s</text>')
    parts.append(f'<text x="{W / 2}" y="{H - 15}" text-anchor="middle">n (log scale)</text>')

    def series(points, color, label, ly, dash=""):
        pts = sorted(points)
        path = " ".join(f"{sx(math.log10(n)):.1f},{sy(math.log10(max(t, 1e-7))):.1f}" for n, t in pts)
        parts.append(f'<polyline points="{path}" fill="none" stroke="{color}" stroke-width="2" {dash}/>')
        for n, t in pts:
            parts.append(f'<circle cx="{sx(math.log10(n)):.1f}" cy="{sy(math.log10(max(t, 1e-7))):.1f}" r="3.5" fill="{color}"/>')
        parts.append(f'<line x1="{L + 20}" y1="{ly}" x2="{L + 50}" y2="{ly}" stroke="{color}" stroke-width="2" {dash}/>')
        parts.append(f'<text x="{L + 56}" y="{ly + 4}">{label}</text>')

    series([(n, v[0]) for n, v in ours.items()], "#1f77b4", "nqueens mean (2 cores)", T + 15)
    series(list(PAPER.items()), "#d62728", "Grigoryan 2019, Matlab, Table 2 mean", T + 33, 'stroke-dasharray="6,4"')
    parts.append("</svg>")
    with open(out, "w") as f:
        f.write("\n".join(parts) + "\n")
    print(f"wrote {out}")


if __name__ == "__main__":
    main()
