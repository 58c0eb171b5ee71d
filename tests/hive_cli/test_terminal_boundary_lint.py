"""Every way hive_cli writes to the terminal goes through the one sanitiser (hive_cli.terminal_text).

Plain output goes through ``echo``/``write_shown``/``echo_json``; Rich output through ``SafeConsole``. So a
new command that prints a server's message, a file name or the model's text cannot forget to: the direct
ways (``click.echo``, ``print``, a stream's ``write``, a plain ``rich.console.Console``, Rich's global
console) are refused here, outside the two modules that implement the sanitiser.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

HIVE_CLI = Path(__file__).resolve().parents[2] / "hive_cli"
SANITISERS = {"terminal_text.py", "safe_console.py"}
WRITES_TO_FILES = {
    ("research_command.py", "write_atomically"): "writes the report into the file --output names",
    ("sessions_command.py", "_write_export"): "the export's exact bytes, to stdout only when it is not a terminal",
    ("results.py", "append"): "appends one result line to hive batch's results file",
}
"""(module, function) that write to a file, not to the terminal, and why."""

BANNED_CALLS = {
    "print": "print: use terminal_text.echo",
    "echo": "click's echo: use terminal_text.echo",
    "secho": "click's secho: use terminal_text.echo",
    "Console": "a plain rich Console: use hive_cli.safe_console.SafeConsole",
    "get_console": "Rich's global console is not a SafeConsole",
    "print_formatted_text": "prompt_toolkit's print: use the view's SafeConsole",
}
BANNED_METHODS = {"write", "writelines"}


def direct_writes(source: str, module: str) -> list[str]:
    """The direct terminal writes in ``source``: one "line: what" each."""
    found: list[str] = []
    for function, node in _calls(ast.parse(source)):
        what = _banned(node, module)
        if what is not None and (module, function) not in WRITES_TO_FILES:
            found.append(f"{node.lineno}: {what}")
    return found


def _calls(tree: ast.AST) -> list[tuple[str, ast.Call]]:
    """Every call with the name of the function it is in ("" at module level)."""
    calls: list[tuple[str, ast.Call]] = []

    def visit(node: ast.AST, function: str) -> None:
        for child in ast.iter_child_nodes(node):
            inner = child.name if isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef) else function
            if isinstance(child, ast.Call):
                calls.append((function, child))
            visit(child, inner)

    visit(tree, "")
    return calls


def _banned(call: ast.Call, module: str) -> str | None:
    target = call.func
    if isinstance(target, ast.Name) and target.id in BANNED_CALLS:
        return None if target.id == "echo" else BANNED_CALLS[target.id]  # a bare echo is terminal_text's
    if not isinstance(target, ast.Attribute):
        return None
    owner = target.value
    if target.attr in BANNED_METHODS:
        return f"{ast.unparse(target)}: write through terminal_text.write_shown"
    if target.attr in BANNED_CALLS and target.attr != "print":
        return f"{ast.unparse(target)}: {BANNED_CALLS[target.attr]}"
    if target.attr == "print" and isinstance(owner, ast.Name) and owner.id in {"rich", "click"}:
        return f"{ast.unparse(target)}: Rich's global console is not a SafeConsole"
    return None


def _modules() -> list[Path]:
    return sorted(path for path in HIVE_CLI.rglob("*.py") if path.name not in SANITISERS)


@pytest.mark.parametrize("path", _modules(), ids=lambda path: str(path.relative_to(HIVE_CLI)))
def test_hive_cli_writes_to_the_terminal_only_through_the_sanitiser(path: Path) -> None:
    module = path.name
    assert direct_writes(path.read_text(encoding="utf-8"), module) == []


def test_the_click_echo_import_is_refused_too() -> None:
    for path in _modules():
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and node.module in {"click", "click.utils", "click.termui"}:
                assert not {alias.name for alias in node.names} & {"echo", "secho"}, path
            if isinstance(node, ast.ImportFrom) and node.module == "rich":
                assert "print" not in {alias.name for alias in node.names}, path


@pytest.mark.parametrize(
    "line",
    [
        "click.echo(name)",
        "click.secho(name, fg='red')",
        "print(name)",
        "sys.stdout.write(name)",
        "self.err.write(name + '\\n')",
        "console.file.write(text)",
        "Console(stderr=True)",
        "rich.console.Console()",
        "rich.print(name)",
        "rich.get_console().print(name)",
    ],
)
def test_the_check_finds_each_direct_write(line: str) -> None:
    assert direct_writes(f"def show(name, text):\n    {line}\n", "some_command.py") != []


def test_the_check_lets_the_sanitised_ways_through() -> None:
    source = (
        "def show(view, name):\n    echo(name)\n    echo_json(name)\n    view.print(name)\n"
        "    write_shown(sys.stderr, name)\n    SafeConsole(stderr=True)\n"
    )
    assert direct_writes(source, "some_command.py") == []
