"""The shape of the code, measured: module and function sizes, import cycles, the seam's targets.

Read with ``ast`` only (nothing is imported), so it runs in a fraction of a second and the test
suite can hold the targets (``tests/engine/test_structure.py``) while ``benchmarks/structure.py``
prints the figures.
"""

from __future__ import annotations

import ast
import statistics
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from benchmarks.support import import_cycles
from benchmarks.support.import_cycles import module_name

ROOT = Path(__file__).resolve().parents[2]
ENGINE = ROOT / "engine"
HIVE_CLI = ROOT / "hive_cli"
COMPOSITION_ROOT = "engine.agent"


@dataclass(frozen=True)
class Shape:
    """What the seam's targets are judged on."""

    modules: int
    lines: int
    modules_over_400: tuple[str, ...]
    function_median: float
    function_max: tuple[str, int]
    session_lines: int
    loop_lines: int
    build_agent_lines: int
    cycles: tuple[tuple[str, ...], ...]
    """Cycles among engine/ modules, counting every import (function-level and typing-only too)."""
    root_cycles: tuple[tuple[str, ...], ...]
    cli_reach_ins: tuple[str, ...]
    fnmatch_users: tuple[str, ...]


def sources(folder: Path) -> Iterator[Path]:
    """Every Python file under ``folder``, caches left out."""
    yield from sorted(p for p in folder.rglob("*.py") if "__pycache__" not in p.parts)


def _functions(tree: ast.Module) -> Iterator[ast.FunctionDef | ast.AsyncFunctionDef]:
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            yield node


def _length(node: ast.AST) -> int:
    return (node.end_lineno or node.lineno) - node.lineno + 1  # type: ignore[attr-defined]


def measure() -> Shape:
    """The shape of engine/ (and hive_cli/'s reach into it) as it is on disk now."""
    trees = {path: ast.parse(path.read_text(encoding="utf-8")) for path in sources(ENGINE)}
    everything = import_cycles.graphs()[1]
    cycles = [tuple(c) for c in import_cycles.cycles(everything) if c[0].startswith("engine")]
    lengths = {path: len(path.read_text(encoding="utf-8").splitlines()) for path in trees}
    functions = [
        (f"{module_name(path)}.{fn.name}", _length(fn)) for path, tree in trees.items() for fn in _functions(tree)
    ]
    build_agent = max((n for name, n in functions if name == f"{COMPOSITION_ROOT}.build_agent"), default=0)
    return Shape(
        modules=len(trees),
        lines=sum(lengths.values()),
        modules_over_400=tuple(module_name(p) for p, n in lengths.items() if n > 400),
        function_median=statistics.median(n for _, n in functions),
        function_max=max(functions, key=lambda item: item[1]),
        session_lines=lengths.get(ENGINE / "session.py", 0),
        loop_lines=lengths.get(ENGINE / "run" / "loop.py", 0),
        build_agent_lines=build_agent,
        cycles=tuple(cycles),
        root_cycles=tuple(c for c in cycles if COMPOSITION_ROOT in c),
        cli_reach_ins=tuple(_cli_reach_ins()),
        fnmatch_users=tuple(module_name(p) for p, tree in trees.items() if "fnmatch" in set(_imported_names(tree))),
    )


def _imported_names(tree: ast.Module) -> Iterator[str]:
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            yield from (alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            yield node.module.split(".")[0]


def _cli_reach_ins() -> Iterator[str]:
    """Places in hive_cli that reach past ``Session`` into the agent's loop (``session.agent.loop``)."""
    for path in sources(HIVE_CLI):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.Attribute) and node.attr == "loop" and isinstance(node.value, ast.Attribute):
                if node.value.attr == "agent":
                    yield f"{path.relative_to(ROOT)}:{node.lineno}"
