"""Turning the paths a model writes into real paths, and keeping them inside the allowed roots."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

from engine.tools.base import ToolContext, ToolResult


class PathOutsideRoots(ValueError):
    """A path resolves (through symbolic links) to a place outside every allowed root."""

    def __init__(self, raw: str, resolved: Path, roots: tuple[Path, ...]) -> None:
        allowed = ", ".join(str(root) for root in roots)
        super().__init__(
            f"Path {raw!r} resolves to {resolved}, which is outside the allowed directories ({allowed}). "
            "Only paths inside them can be used."
        )
        self.resolved = resolved
        self.roots = roots


def working_directory(ctx: ToolContext) -> Path:
    """The context's working directory as an absolute path with symbolic links resolved."""
    cwd = ctx.cwd.expanduser()
    if not cwd.is_absolute():
        cwd = Path(os.getcwd()) / cwd
    return cwd.resolve(strict=False)


def resolve_path(raw: str, ctx: ToolContext) -> Path:
    """Resolve a path given by the model to an absolute path, as the file tools will open it.

    ``~`` is expanded, relative paths are taken relative to ``ctx.cwd``, and ``.``/``..`` and symbolic
    links are resolved (the path itself need not exist). When ``ctx.file_options.allowed_roots`` is set,
    a path that is not inside one of the (resolved) roots raises :class:`PathOutsideRoots`; without
    roots any path is accepted. Malformed paths raise ``ValueError``.
    """
    if "\0" in raw:
        raise ValueError(f"Path {raw!r} contains a NUL character.")
    try:
        path = Path(raw).expanduser()
        if not path.is_absolute():
            path = working_directory(ctx) / path
        resolved = path.resolve(strict=False)
    except (OSError, RuntimeError) as exc:  # RuntimeError: unknown ~user or a symlink loop
        raise ValueError(f"Cannot resolve path {raw!r}: {exc}") from exc
    roots = ctx.file_options.allowed_roots
    if roots is not None:
        resolved_roots = tuple(_resolve_root(root, ctx) for root in roots)
        if not any(resolved == root or resolved.is_relative_to(root) for root in resolved_roots):
            raise PathOutsideRoots(raw, resolved, resolved_roots)
    return resolved


def display_path(path: Path, ctx: ToolContext) -> str:
    """``path`` relative to the working directory when it lies inside it, otherwise absolute."""
    cwd = working_directory(ctx)
    if path == cwd:
        return "."
    if path.is_relative_to(cwd):
        return str(path.relative_to(cwd))
    return str(path)


def _resolve_root(root: Path, ctx: ToolContext) -> Path:
    root = root.expanduser()
    if not root.is_absolute():
        root = working_directory(ctx) / root
    return root.resolve(strict=False)


def with_path(raw: str, ctx: ToolContext, body: Callable[[Path, str], ToolResult]) -> ToolResult:
    """Resolve ``raw`` and call ``body(path, shown)``, turning path and OS errors into error results.

    ``shown`` is the path as it should appear in messages (see :func:`display_path`). Blocking: call
    it through :func:`~engine.tools.base.run_blocking`.
    """
    try:
        path = resolve_path(raw, ctx)
    except ValueError as exc:
        return ToolResult.error(str(exc))
    shown = display_path(path, ctx)
    try:
        return body(path, shown)
    except OSError as exc:
        return ToolResult.error(describe_os_error(exc, shown))
    except ValueError as exc:  # e.g. a file name the file system cannot encode
        return ToolResult.error(f"{shown}: {exc}")


def describe_os_error(exc: OSError, shown: str) -> str:
    """A one-line message for a failed file-system operation on ``shown``."""
    if isinstance(exc, FileNotFoundError):
        return f"Not found: {shown}"
    if isinstance(exc, PermissionError):
        return f"Permission denied: {shown}"
    if isinstance(exc, IsADirectoryError):
        return f"{shown} is a directory"
    if isinstance(exc, NotADirectoryError):
        return f"A parent of {shown} is not a directory"
    return f"{shown}: {exc.strerror or exc}"
