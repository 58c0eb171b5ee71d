"""Which modules of one folder a Python program imports: what an approval of a project's Python server pins.

Python puts one folder first on the import path: a script's own folder (``python srv.py``) or the
working folder (``python -m srv``). When that folder is the project root, hive cannot pin the whole
project, so :func:`imported_modules` follows the program's ``import`` statements (read with
:mod:`ast`, transitively, bounded) to the modules of that folder it loads, and
:func:`module_names_digest` pins which module names the folder offers, so that a module added later
to shadow an installed one is noticed. Best effort: an import built at run time is not seen.
"""

from __future__ import annotations

import ast
import hashlib
import os
from collections.abc import Iterable
from pathlib import Path

from engine.safe_read import read_bounded

SOURCE_LIMIT = 1024 * 1024
"""The largest source file that is read for its imports (bytes)."""
MODULE_LIMIT = 200
"""At most this many modules are followed."""
_EXTENSIONS = (".py", ".pyw", ".pyc", ".so", ".pyd")


def imported_modules(sources: Iterable[Path], folder: Path) -> list[Path]:
    """The modules of ``folder`` (``name.py`` files and package folders) that ``sources`` import, transitively."""
    found: dict[Path, None] = {}
    queue = list(sources)
    seen: set[Path] = set()
    while queue and len(found) < MODULE_LIMIT:
        source = queue.pop()
        if source in seen:
            continue
        seen.add(source)
        for name in sorted(_imported_names(source)):
            module = _module_in(folder, name)
            if module is not None and module not in found:
                found[module] = None
                queue.extend(module_sources(module))
    return list(found)


def module_names_digest(folder: Path) -> str:
    """``sha256:`` of the names of the modules and packages ``folder`` offers to ``import`` (not their content)."""
    try:
        entries = sorted(os.scandir(folder), key=lambda entry: entry.name)
    except OSError as exc:
        return f"unpinned: cannot list it ({exc.strerror})"
    names = [entry.name for entry in entries if _offers_module(entry)]
    return "sha256:" + hashlib.sha256("\n".join(names).encode()).hexdigest()


def _offers_module(entry: os.DirEntry[str]) -> bool:
    if entry.name.endswith(_EXTENSIONS):
        return True
    return entry.is_dir(follow_symlinks=False) and os.path.lexists(os.path.join(entry.path, "__init__.py"))


def _imported_names(source: Path) -> set[str]:
    """The top-level names ``source`` imports absolutely (``import a.b``, ``from a import b``: ``a``)."""
    try:
        tree = ast.parse(read_bounded(source, limit=SOURCE_LIMIT))
    except (OSError, SyntaxError, ValueError, RecursionError, MemoryError):  # UnsafeFile is an OSError
        return set()
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names.add(node.module.split(".")[0])
    return names


def _module_in(folder: Path, name: str) -> Path | None:
    for candidate in (folder / name, folder / f"{name}.py"):
        if os.path.lexists(candidate):
            return candidate
    return None


def module_sources(module: Path) -> list[Path]:
    """The Python files of a module: itself, or a package's files (bounded)."""
    if not module.is_dir():
        return [module]
    files: list[Path] = []
    for here, folders, names in os.walk(module):
        folders[:] = sorted(name for name in folders if name != "__pycache__")
        files += [Path(here) / name for name in sorted(names) if name.endswith(".py")]
        if len(files) >= MODULE_LIMIT:
            break
    return files[:MODULE_LIMIT]
