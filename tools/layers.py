#!/usr/bin/env python3
"""Checks the library's layers: a module imports only modules of its own layer or below,
and no two modules import each other, directly or through others.

The layers, bottom to top (docs/ARCHITECTURE.md, "Layers", says what each holds):

  0  board closed_form rng stop memory cleanup     shared plumbing and closed forms
     progress oracle simd
  1  format excluded                            files in and out
  2  verify                                     the verifier
  3  exact                                      exact search, residuals, certificates
  4  complete count generate dimacs             the engines and the CNF export
  5  json publish                               records and published files

The binary's `src/cli` sits above all of them and is a separate crate in effect (it reaches
the library only through `nqueens::`). Imports are read from code, not from comments, and
test code (`tests.rs` files, `#[cfg(test)]` modules) may reach anywhere: tests build their
fixtures with whatever the crate has. Test items are cut out by matching braces, so code
after one is still read.

Files of one folder may not import each other in a cycle either (`super::x`); the folder's
`mod.rs` is its facade and is left out of that check.

Usage: tools/layers.py [SRC_DIR]; exit 1 and one line per violation when a rule is broken.
tools/layers.py --self-test plants violations in a copy of src/ and checks that each fails.
"""

import re
import sys
from pathlib import Path

LAYERS = [
    ["board", "closed_form", "rng", "stop", "memory", "cleanup", "progress", "oracle", "simd"],
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


def strip_comments_and_strings(text: str) -> str:
    """The file with comments and string and character literals emptied, so that braces
    and `crate::` inside them count for nothing."""
    out, i, n = [], 0, len(text)
    while i < n:
        c = text[i]
        if text.startswith("//", i):
            j = text.find("\n", i)
            i = n if j < 0 else j
        elif text.startswith("/*", i):
            depth, i = 1, i + 2
            while i < n and depth:
                if text.startswith("/*", i):
                    depth, i = depth + 1, i + 2
                elif text.startswith("*/", i):
                    depth, i = depth - 1, i + 2
                else:
                    i += 1
            out.append(" ")
        elif c == "r" and re.match(r'r#*"', text[i:]) and (i == 0 or not (text[i - 1].isalnum() or text[i - 1] == "_")):
            hashes = re.match(r"r(#*)\"", text[i:]).group(1)
            end = text.find('"' + hashes, i + 2 + len(hashes))
            out.append('""')
            i = n if end < 0 else end + 1 + len(hashes)
        elif c == '"':
            j = i + 1
            while j < n and text[j] != '"':
                j += 2 if text[j] == "\\" else 1
            out.append('""')
            i = j + 1
        elif c == "'" and re.match(r"'(\\.|[^\\'])'", text[i:]):
            m = re.match(r"'(\\.|[^\\'])'", text[i:])
            out.append("' '")
            i += m.end()
        else:
            out.append(c)
            i += 1
    return "".join(out)


def without_test_items(code: str) -> str:
    """The code without the items under `#[cfg(test)]` (a `mod tests { ... }`, a function,
    a `use` line, an `impl` block), each cut to its own end by matching braces, so that
    code after a test item is still read."""
    out, i = [], 0
    for m in re.finditer(r"#\[cfg\(test\)\]", code):
        if m.start() < i:
            continue
        out.append(code[i : m.start()])
        j = m.end()
        # Further attributes of the same item.
        while True:
            a = re.match(r"\s*#\[[^\]]*\]", code[j:])
            if not a:
                break
            j += a.end()
        # The item ends at its first `;` before any brace, or at its matching `}`.
        depth, k = 0, j
        while k < len(code):
            ch = code[k]
            if ch == ";" and depth == 0:
                k += 1
                break
            if ch == "{":
                depth += 1
            elif ch == "}":
                depth -= 1
                if depth == 0:
                    k += 1
                    break
            k += 1
        i = k
    out.append(code[i:])
    return "".join(out)


def code_of(text: str) -> str:
    """The file without comments, string literals and test items."""
    return without_test_items(strip_comments_and_strings(text))


def imports(code: str) -> set:
    found = set(re.findall(r"\bcrate::([a-z_][a-z0-9_]*)", code))
    for group in re.findall(r"\bcrate::\{([^}]*)\}", code):
        found.update(re.findall(r"(?:^|,)\s*([a-z_][a-z0-9_]*)", group))
    return found


def sibling_imports(path: Path, code: str, src: Path) -> set:
    """The files of the same folder that a file imports (`super::x`, `crate::m::x`, and
    `crate::m::sub::x` in a nested folder such as `format/matlab/`), for the check of
    cycles between files of one module; `mod.rs`, the folder's facade, is left out."""
    folder = path.parent
    module_path = "::".join(folder.relative_to(src).parts)
    siblings = {p.stem for p in folder.glob("*.rs") if p.name not in ("mod.rs", "tests.rs")}
    siblings |= {p.name for p in folder.iterdir() if p.is_dir()}
    found = set()
    names = set(re.findall(r"\bsuper::([a-z_][a-z0-9_]*)", code))
    for group in re.findall(r"\bsuper::\{([^}]*)\}", code):
        names.update(re.findall(r"(?:^|,)\s*([a-z_][a-z0-9_]*)", group))
    names |= set(re.findall(r"\bcrate::" + re.escape(module_path) + r"::([a-z_][a-z0-9_]*)", code))
    return {x for x in names if x in siblings and x != path.stem}


def find_cycles(edges: dict, where) -> list:
    """One line per import cycle in the graph `edges` (node -> {node: file of the edge})."""
    problems, state = [], {}

    def visit(m, stack):
        state[m] = "open"
        for d in edges.get(m, {}):
            if state.get(d) == "open":
                cycle = stack[stack.index(d):] + [d] if d in stack else [m, d]
                problems.append(
                    "import cycle: " + " -> ".join(cycle) + f" (edge {m} -> {d} in {where(m, d)})"
                )
            elif d not in state:
                visit(d, stack + [d])
        state[m] = "done"

    for m in sorted(edges):
        if m not in state:
            visit(m, [m])
    return problems


def self_test() -> int:
    """The checker's own test: an upward import planted in the middle of a file, after a
    test item, must fail it; so must a cycle between two files of one folder."""
    import shutil
    import subprocess
    import tempfile

    src = Path(__file__).parent.parent / "src"
    failures = 0
    with tempfile.TemporaryDirectory() as tmp:
        copy = Path(tmp) / "src"
        shutil.copytree(src, copy)
        base = subprocess.run([sys.executable, __file__, str(copy)], capture_output=True, text=True)
        if base.returncode != 0:
            print("layers self-test: the tree as it is fails:\n" + base.stdout)
            return 1
        plants = [
            # Upward: format (layer 1) importing publish (layer 5), after a test module.
            ("format/csplib.rs", "\n#[cfg(test)]\nmod planted_tests {\n    fn f() {}\n}\n\nfn planted() { let _ = crate::publish::merge::merge; }\n"),
            # Upward, after a `#[cfg(test)] mod x;` declaration (the hole that once hid 520 lines).
            ("count/mod.rs", "\n#[cfg(test)]\nmod planted;\n\nfn planted() { let _ = crate::publish::merge::merge; }\n"),
            # A cycle between two files of one folder.
            ("count/kernel.rs", "\nfn planted() { let _ = super::sieve::disjoint_pairs; }\n"),
            # A cycle between two files of a nested folder, named by its whole path.
            ("format/matlab/mat73/chunks.rs", "\nfn planted() { let _ = crate::format::matlab::mat73::read::Mat73File::n; }\n"),
        ]
        for rel, text in plants:
            target = copy / rel
            before = target.read_text()
            target.write_text(before + text)
            r = subprocess.run([sys.executable, __file__, str(copy)], capture_output=True, text=True)
            target.write_text(before)
            if r.returncode == 0:
                print(f"layers self-test: a violation planted in {rel} passed")
                failures += 1
    print("layers self-test: " + ("ok" if not failures else f"{failures} failures"))
    return 1 if failures else 0


def main() -> int:
    if sys.argv[1:] == ["--self-test"]:
        return self_test()
    src = Path(sys.argv[1] if len(sys.argv) > 1 else Path(__file__).parent.parent / "src")
    edges = {}
    file_edges = {}
    problems = []
    for path in sorted(src.rglob("*.rs")):
        rel = path.relative_to(src)
        if rel.parts[0] in ("cli", "main.rs", "lib.rs") or path.name == "tests.rs":
            continue
        m = module_of(path, src)
        if m not in LAYER:
            problems.append(f"{rel}: module {m} is in no layer (add it to tools/layers.py)")
            continue
        code = code_of(path.read_text())
        if path.name != "mod.rs" and len(rel.parts) > 1:
            for d in sibling_imports(path, code, src):
                node = str(rel.parent / path.stem)
                file_edges.setdefault(node, {}).setdefault(str(rel.parent / d), str(rel))
        for d in imports(code):
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
    # Cycles between modules, also within a layer, and between the files of one folder.
    problems += find_cycles(edges, lambda m, d: edges[m][d])
    problems += find_cycles(file_edges, lambda m, d: file_edges[m][d])
    for p in problems:
        print(f"layers: {p}")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
