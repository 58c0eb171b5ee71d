"""Lint: no test sleeps for a result. A test waits for the event that proves the state, then acts.

A ``time.sleep(x)`` / ``asyncio.sleep(x)`` / ``anyio.sleep(x)`` with ``x`` other than 0 is refused unless it
is inside a ``while`` or ``for`` loop (polling until a condition holds, with a deadline that only guards a
failure), or the file and function are on the allow-list below with the reason the pause is the thing
under test. ``sleep(0)`` (yield to the event loop) is fine anywhere.
"""

from __future__ import annotations

import ast
import os
import warnings
from collections.abc import Iterator
from pathlib import Path

TESTS = Path(__file__).parents[1]
SLEEPERS = {("time", "sleep"), ("asyncio", "sleep"), ("anyio", "sleep"), ("trio", "sleep")}

ALLOWED = {
    ("tests/hive_cli/repl/test_interrupts_pty.py", "test_the_question_is_put_to_a_person_and_the_wait_is_not_the_run_time"):
        "a person's pause before answering: the wait the report must show apart from the run time",
    ("tests/engine/policy/test_decision_waits.py", "decide"):
        "a person's thinking time: the wait that must not be counted as run time",
    ("tests/support/mcp_server.py", "hang"): "the test server's hanging tool: never answering is its behaviour",
    ("tests/support/mcp_server.py", "main"): "the test server's --hang-at-start: never connecting is its behaviour",
    ("tests/support/agents.py", "execute"): "a scripted tool's delay: its run time, asked for by the test",
}  # fmt: skip
"""(file, enclosing function) -> why the pause is the point, not a wait for a result."""


def _is_sleep(node: ast.Call) -> bool:
    func = node.func
    if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name):
        return (func.value.id, func.attr) in SLEEPERS
    return False


def _sleeps_for_zero(node: ast.Call) -> bool:
    return len(node.args) == 1 and isinstance(node.args[0], ast.Constant) and node.args[0].value == 0


def _bare_sleeps(tree: ast.AST) -> Iterator[tuple[int, str]]:
    """(line, enclosing function) of each sleep outside a loop, in the function it is written in."""

    def visit(node: ast.AST, function: str, in_loop: bool) -> Iterator[tuple[int, str]]:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda):
                name = child.name if not isinstance(child, ast.Lambda) else function
                yield from visit(child, name, in_loop=False)
            elif isinstance(child, ast.While | ast.For | ast.AsyncFor):
                yield from visit(child, function, in_loop=True)
            else:
                if isinstance(child, ast.Call) and _is_sleep(child) and not _sleeps_for_zero(child) and not in_loop:
                    yield child.lineno, function
                yield from visit(child, function, in_loop)

    yield from visit(tree, "<module>", in_loop=False)


def _python_files(root: Path) -> Iterator[Path]:
    """The suite's own Python files (not the npm packages of the MCP reference servers)."""
    for folder, subfolders, files in os.walk(root):
        subfolders[:] = sorted(name for name in subfolders if name != "node_modules")
        yield from (Path(folder) / name for name in sorted(files) if name.endswith(".py"))


def _parsed(path: Path) -> ast.Module:
    """``path``'s syntax tree. A ResourceWarning raised by the garbage collector while the tree is built (another
    test's unclosed event loop, collected now) would break CPython 3.11's AST constructor ("recursion depth
    mismatch"), so such a warning is reported, not raised, while parsing."""
    with warnings.catch_warnings():
        warnings.simplefilter("default", ResourceWarning)
        return ast.parse(path.read_text(encoding="utf-8"), str(path))


def _found(root: Path) -> list[str]:
    found = []
    for path in _python_files(root):
        relative = path.relative_to(root.parent).as_posix()
        for line, function in _bare_sleeps(_parsed(path)):
            if (relative, function) not in ALLOWED:
                found.append(f"{relative}:{line} in {function}()")
    return found


def test_no_test_sleeps_for_a_result() -> None:
    assert _found(TESTS) == [], "wait for the event that proves the state instead (or allow-list a pause with why)"


def test_every_allowed_pause_is_still_there() -> None:
    everything = {
        (path.relative_to(TESTS.parent).as_posix(), function)
        for path in _python_files(TESTS)
        for _, function in _bare_sleeps(_parsed(path))
    }
    assert set(ALLOWED) <= everything, "drop the allow-list entries that no longer match a sleep"


def test_the_lint_refuses_a_bare_sleep_and_allows_polling(tmp_path: Path) -> None:
    source = (
        "import asyncio, time\n"
        "def waits_for_a_result():\n    time.sleep(0.5)\n"
        "async def polls(flag):\n    while not flag.exists():\n        await asyncio.sleep(0.05)\n"
        "async def yields():\n    await asyncio.sleep(0)\n"
    )
    assert list(_bare_sleeps(ast.parse(source))) == [(3, "waits_for_a_result")]
