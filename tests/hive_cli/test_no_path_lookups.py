"""hive_cli finds programs the way engine/ does: ruff bans ``shutil.which`` in engine/, and this holds hive_cli to it.

(hive_cli is exempt from ruff's banned-API rule as a whole, since it may import rich and click.)
"""

from __future__ import annotations

import ast
from pathlib import Path

import hive_cli


def path_lookups(source: str) -> list[int]:
    """The lines of ``source`` that use ``shutil.which`` (called, passed or imported by name)."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Attribute) and node.attr == "which":
            if isinstance(node.value, ast.Name) and node.value.id == "shutil":
                found.append(node.lineno)
        elif isinstance(node, ast.ImportFrom) and node.module == "shutil":
            found += [node.lineno for alias in node.names if alias.name == "which"]
    return sorted(found)


def test_the_check_sees_both_spellings() -> None:
    assert path_lookups("import shutil\nx = shutil.which('rg')\nfrom shutil import which\n") == [2, 3]


def test_no_module_of_hive_cli_looks_programs_up_on_path() -> None:
    package = Path(hive_cli.__file__).parent
    found = {
        str(module.relative_to(package)): lines
        for module in sorted(package.rglob("*.py"))
        if (lines := path_lookups(module.read_text(encoding="utf-8")))
    }
    assert found == {}, "use engine.programs.trusted_program (or engine.mcp.stdio.server_program)"
