"""README.md's "From Python" section: its ```python blocks run, in order, in one namespace,
in a scratch directory (with `tests/` of the checkout beside them, and the command line on
PATH), so that what the README shows works as shown."""

import os
import re

from conftest import ROOT


def python_blocks():
    text = (ROOT / "README.md").read_text()
    start = text.index("\n## From Python\n")
    end = text.index("\n## ", start + 1)
    blocks = re.findall(r"```python\n(.*?)```", text[start:end], re.S)
    assert blocks, "README.md's From Python section has no python block"
    return blocks


def test_the_readme_python_blocks_run(cli, tmp_path, monkeypatch, capsys):
    (tmp_path / "tests").symlink_to(ROOT / "tests")
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("PATH", f"{cli.parent}{os.pathsep}{os.environ['PATH']}")
    namespace = {"__name__": "__readme__"}
    for i, block in enumerate(python_blocks()):
        code = compile(block, f"README.md python block {i + 1}", "exec")
        exec(code, namespace)
