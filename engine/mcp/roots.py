"""The roots hive offers every MCP server (``roots/list``): the project root and ``sandbox.writable_roots``.

Every server gets the same roots, as ``file://`` URIs with names. They come from the sandbox options
the session already settled (a project's own settings cannot add a writable folder outside the
project, :func:`engine.sandbox.options.layered_options`), so a server learns of no folder the
person did not give hive. The list is fixed for a session: settings are read again only for the
next session, which starts its servers afresh, so hive never has a change to announce.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from msgspec import Struct

from engine.paths import project_root
from engine.sandbox.options import SandboxOptions


class Root(Struct, frozen=True, kw_only=True):
    """One folder offered to servers."""

    path: Path
    """Absolute and resolved."""
    name: str

    @property
    def uri(self) -> str:
        """The ``file://`` URI of the folder."""
        return self.path.as_uri()


def offered_roots(cwd: Path, options: SandboxOptions | None) -> tuple[Root, ...]:
    """The project root of ``cwd`` first, then each folder of ``options.writable_roots`` (each once)."""
    project = project_root(cwd)
    roots = {project: Root(path=project, name=f"project {project.name or project}")}
    for folder in options.writable_roots if options is not None else ():
        resolved = folder.resolve()
        roots.setdefault(resolved, Root(path=resolved, name=f"writable root {resolved.name or resolved}"))
    return tuple(roots.values())


def roots_result(roots: tuple[Root, ...]) -> Any:
    """The SDK's answer to ``roots/list`` (imported here: the SDK is loaded only once a server starts)."""
    from mcp_types import ListRootsResult
    from mcp_types import Root as WireRoot

    return ListRootsResult(roots=[WireRoot(uri=root.uri, name=root.name) for root in roots])  # type: ignore[arg-type]
