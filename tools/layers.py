#!/usr/bin/env python3
"""Checks the library's layers: a module imports only modules of its own layer or below,
and no two modules import each other, directly or through others.

The layers, bottom to top (README.md, "Layout", says what each holds):

  0  board closed_form rng stop memory cleanup     shared plumbing and closed forms
     progress oracle
  1  format excluded                            files in and out
  2  verify                                     the verifier
  3  exact                                      exact search, residuals, certificates
  4  complete count generate dimacs             the engines and the CNF export
  5  json publish                               records and published files

The binary's `src/cli` sits above all of them and is a separate crate in effect (it reaches
the library only through `nqueens::`). Imports are read from code, not from comments, and
test code (`tests.rs` files, `#[cfg(test)]` modules) may reach anywhere: tests build their
fixtures with whatever the crate has.

Usage: tools/layers.py [SRC_DIR]; exit 1 and one line per violation when a rule is broken.
"""

import re
import sys
from pathlib import Path

LAYERS = [
    ["board", "closed_form", "rng", "stop", "memory", "cleanup", "progress", "oracle"],
    ["format", "excluded"],
    ["verify"],
    ["exact"],
    ["complete", "count", "generate", "dimacs"],
    ["json", "publish"],
]
LAYER = {m: i for i, ms in enumerate(LAYERS) for m in ms}


def module_of(path: Path, src: Path) -> str:
    rel = path.relative_to(src)
    return rel.parts[0].removesuffix(".rs")


def code_of(text: str) -> str:
    """The file without comments, string literals and test modules."""
    cut = re.search(r"^#\[cfg\(test\)\]\s*\n\s*mod ", text, re.M)
    if cut:
        text = text[: cut.start()]
    text = re.sub(r"/\*.*?\*/", "", text, flags=re.S)
    text = re.sub(r"//[^\n]*", "", text)
    text = re.sub(r'"(\\.|[^"\\])*"', '""', text)
    return text


def imports(code: str) -> set:
    found = set(re.findall(r"\bcrate::([a-z_][a-z0-9_]*)", code))
    for group in re.findall(r"\bcrate::\{([^}]*)\}", code):
        found.update(re.findall(r"(?:^|,)\s*([a-z_][a-z0-9_]*)", group))
    return found


def main() -> int:
    src = Path(sys.argv[1] if len(sys.argv) > 1 else Path(__file__).parent.parent / "src")
    edges = {}
    problems = []
    for path in sorted(src.rglob("*.rs")):
        rel = path.relative_to(src)
        if rel.parts[0] in ("cli", "main.rs", "lib.rs") or path.name == "tests.rs":
            continue
        m = module_of(path, src)
        if m not in LAYER:
            problems.append(f"{rel}: module {m} is in no layer (add it to tools/layers.py)")
            continue
        for d in imports(code_of(path.read_text())):
            if d == m:
                continue
            if d not in LAYER:
                problems.append(f"{rel}: imports crate::{d}, which is in no layer")
                continue
            edges.setdefault(m, {}).setdefault(d, str(rel))
            if LAYER[d] > LAYER[m]:
                problems.append(
                    f"{rel}: {m} (layer {LAYER[m]}) imports {d} (layer {LAYER[d]}), a higher layer"
                )
    # Cycles, also within a layer.
    state = {}

    def visit(m, stack):
        state[m] = "open"
        for d in edges.get(m, {}):
            if state.get(d) == "open":
                cycle = stack[stack.index(d):] + [d] if d in stack else [m, d]
                problems.append(
                    "import cycle: " + " -> ".join(cycle) + f" (edge {m} -> {d} in {edges[m][d]})"
                )
            elif d not in state:
                visit(d, stack + [d])
        state[m] = "done"

    for m in sorted(edges):
        if m not in state:
            visit(m, [m])
    for p in problems:
        print(f"layers: {p}")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
