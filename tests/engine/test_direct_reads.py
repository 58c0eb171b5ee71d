"""engine/ opens files to read them through engine.safe_read only, except where it reads its own files.

A project can put a FIFO, a link to ``/proc/self/environ`` or a sparse gigabyte where hive expects a
file; engine.safe_read refuses the first two and bounds the third. ruff's banned-API rule cannot see
a method called on an instance (``path.read_text()``) or the builtin ``open`` (ruff 0.17 checked),
so this test parses engine/ and fails on every ``open(``, ``.open(``, ``.read_text(`` and
``.read_bytes(`` call outside the functions listed below, each with the reason it may read directly:
it reads hive's own storage or packaged data, or is itself a no-follow opener. A call that visibly
writes is not a read: ``os.open`` with ``O_WRONLY``, ``O_CREAT`` or ``O_DIRECTORY`` among its flags,
``open``/``.open`` with a ``"w"``, ``"a"`` or ``"x"`` mode.
"""

from __future__ import annotations

import ast
from pathlib import Path

import engine

_READ_CALLS = frozenset({"open", "read_text", "read_bytes"})
_WRITE_FLAGS = frozenset({"O_WRONLY", "O_CREAT", "O_DIRECTORY"})

ALLOWED: dict[str, str] = {
    "safe_read.py:open_checked": "the safe reader itself",
    "tools/files.py:fsync_directory": "opens a folder to fsync it",
    "tools/files.py:replaced_atomically": "creates a new temporary file (O_EXCL, no link followed) and only writes it",
    "tools/files.py:editor_text": "asks the editor hosting hive (ACP), after the file was judged with open_checked",
    "private_files.py:_private_descriptor": "creates or opens hive's own private files (0600)",
    "scratch.py:*": "creates the scratch file beneath folders opened without following links",
    "sandbox/nofollow.py:*": "the sandbox's no-follow opener (dir_fd walk, O_NOFOLLOW)",
    "checkpoints/nofollow.py:*": "the checkpoints' no-follow opener (dir_fd walk, O_NOFOLLOW)",
    "checkpoints/states.py:_read_regular": "checkpoints copy project files: O_NOFOLLOW, O_NONBLOCK, regular files only, bounded",
    "checkpoints/store.py:*": "hive's own checkpoint store in its data folder",
    "checkpoints/open_turns.py:*": "hive's own records of the open turns, beside the checkpoint store",
    "checkpoints/scan_base.py:*": "hive's own base pre-scans, beside the open turns' records",
    "session_store.py:*": "hive's own session files in its data folder",
    "session_lock.py:in_use": "tries the lock of hive's own session file (opened to lock it, never read)",
    "trust/store.py:*": "hive's own trust file and its lock in its config folder",
    "mcp/approvals.py:_read": "hive's own approvals file in its data folder",
    "model/model_table.py:*": "the packaged model table and the one hive saved in its data folder",
    "model/resolve.py:_first_model": "urllib's opener: a request to the model server, not a file",
    "model/window_probe.py:_json": "urllib's opener: a question to the model server, not a file",
    "context/bundled_tokenizer.py:cl100k_counter": "the tokenizer ranks packaged with hive",
    "model/litellm_data.py:litellm_json": "the data files packaged with litellm (providers, credential fields)",
    "sandbox/probe.py:_userns_hint": "kernel settings under /proc/sys, read by hive about the machine",
    "images.py:_decoded": "Pillow opens the bytes read_bounded read (a buffer in memory, not a file)",
}
"""``module:function`` (or ``module:*``) relative to engine/, and why it may read without engine.safe_read."""


def direct_reads(source: str) -> list[tuple[str, int]]:
    """The enclosing function (``Class.method``, or ``<module>``) and line of each read call in ``source``."""
    found: list[tuple[str, int]] = []

    def visit(node: ast.AST, scope: tuple[str, ...]) -> None:
        for child in ast.iter_child_nodes(node):
            inner = scope
            if isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
                inner = (*scope, child.name)
            if isinstance(child, ast.Call) and _is_read_call(child):
                found.append((".".join(scope) or "<module>", child.lineno))
            visit(child, inner)

    visit(ast.parse(source), ())
    return found


def _is_read_call(call: ast.Call) -> bool:
    func = call.func
    if isinstance(func, ast.Attribute) and func.attr in _READ_CALLS:
        is_os_open = isinstance(func.value, ast.Name) and func.value.id == "os" and func.attr == "open"
        return not (_writes_by_flags(call) if is_os_open else _writes_by_mode(call))
    return isinstance(func, ast.Name) and func.id == "open" and not _writes_by_mode(call)


def _writes_by_flags(call: ast.Call) -> bool:
    """``os.open(path, os.O_WRONLY | os.O_CREAT, ...)``: a flag that writes, creates or opens a folder."""
    flags = call.args[1] if len(call.args) > 1 else None
    names = (
        {node.attr if isinstance(node, ast.Attribute) else getattr(node, "id", "") for node in ast.walk(flags)}
        if flags
        else set()
    )
    return bool(names & _WRITE_FLAGS)


def _writes_by_mode(call: ast.Call) -> bool:
    """``open(path, "w")`` / ``path.open("a")``: a mode that writes, given as a literal."""
    modes = [*call.args, *(k.value for k in call.keywords if k.arg == "mode")]
    return any(isinstance(m, ast.Constant) and isinstance(m.value, str) and set(m.value) & set("wax") for m in modes)


def _allowed(module: str, function: str) -> bool:
    outer = function.split(".")[-1]
    return any(key in ALLOWED for key in (f"{module}:*", f"{module}:{function}", f"{module}:{outer}"))


def test_the_check_sees_every_spelling() -> None:
    source = (
        "import os\n"
        "def f(path):\n"
        "    open(path)\n"
        "    path.read_text()\n"
        "    path.read_bytes()\n"
        "    path.open()\n"
        "    os.open(path, 0)\n"
        "    os.open(path, os.O_WRONLY | os.O_CREAT, 0o600)\n"
        "    open(path, 'w')\n"
        "    path.open(mode='a')\n"
        "class C:\n"
        "    def m(self):\n"
        "        return self.path.read_text()\n"
        "x = open('y')\n"
    )
    assert direct_reads(source) == [("f", 3), ("f", 4), ("f", 5), ("f", 6), ("f", 7), ("C.m", 13), ("<module>", 14)]


def test_engine_reads_files_through_the_safe_reader_outside_the_listed_exceptions() -> None:
    package = Path(engine.__file__).parent
    offenders = [
        f"engine/{module}:{line} in {function}"
        for path in sorted(package.rglob("*.py"))
        for module in [path.relative_to(package).as_posix()]
        for function, line in direct_reads(path.read_text(encoding="utf-8"))
        if not _allowed(module, function)
    ]
    assert offenders == [], (
        "read through engine.safe_read (read_bounded, read_head, open_checked); if the file is hive's own, "
        "list the function in ALLOWED with the reason"
    )
