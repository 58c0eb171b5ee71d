"""The tools each MCP server listed last time, so a session offers them before the server has connected.

A session waits for a server it has never seen; for one it has, it offers the tools the server
listed last time at once and connects in the background, and the server's real list replaces them
as soon as it arrives (a changed list is written back). What is kept, per server, is what the model
is offered (each tool's name, description, input schema and the server's read-only and destructive
marks) and its resources' URIs (named in ``read_resource``'s description), beside the name and
version the server gave for itself. Nothing else: no result, no environment value, no header.

One small JSON file per server in the user cache folder (``mcp-tools/``), named by a digest of what
the server is launched as (:func:`cache_key`): the entry as written and the launch files' contents
(what an approval covers) and the project it was configured in. So a changed launch is a server
never seen, and a project's server is never offered from the cache before it is approved (a server
awaiting approval is not started at all, and its cached tools are not offered). Files are written
atomically, 0600; a damaged, foreign or oversized file is ignored (and rewritten after the next listing).
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import threading
from pathlib import Path
from typing import Any

import msgspec
from msgspec import Struct

from engine.mcp.config import ServerConfig
from engine.paths import user_cache_dir
from engine.private_files import open_private, private_dir
from engine.safe_read import UnsafeFile, read_bounded

CACHE_FOLDER = "mcp-tools"
MAX_FILE_BYTES = 4_000_000
"""A cache file larger than this is not read (it is rewritten after the next listing)."""
FORMAT = 1


class ServerTool(Struct, frozen=True, kw_only=True, omit_defaults=True):
    """One tool as its server lists it: what hive needs to offer it (the SDK's ``Tool``, in plain values)."""

    name: str
    description: str | None = None
    title: str | None = None
    input_schema: Any = None
    read_only: bool = False
    destructive: bool | None = None


class KnownTools(Struct, frozen=True, kw_only=True):
    """What a server listed: its tools and resources' URIs, and the name and version it gave for itself."""

    format: int = FORMAT
    server_name: str | None = None
    server_version: str | None = None
    tools: tuple[ServerTool, ...] = ()
    resources: tuple[str, ...] = ()


def server_tool(tool: Any) -> ServerTool:
    """``tool`` (an SDK ``mcp_types.Tool``) as a plain record."""
    annotations = tool.annotations
    return ServerTool(
        name=tool.name,
        description=tool.description,
        title=tool.title or (annotations.title if annotations is not None else None),
        input_schema=tool.input_schema,
        read_only=bool(annotations is not None and annotations.read_only_hint),
        destructive=annotations.destructive_hint if annotations is not None else None,
    )


def cache_key(server: ServerConfig) -> str:
    """The digest naming ``server``'s cache file: its launch as written (and launch files) and its project."""
    text = msgspec.json.encode([server.launch_fingerprint, str(server.project), server.from_project])
    return hashlib.sha256(text).hexdigest()


def cache_file(server: ServerConfig) -> Path:
    """Where ``server``'s last listing is kept."""
    return user_cache_dir() / CACHE_FOLDER / f"{cache_key(server)}.json"


def read_known(server: ServerConfig) -> KnownTools | None:
    """The tools ``server`` listed last time; None when there is no cache, or it cannot be read or trusted as ours."""
    try:
        known = msgspec.json.decode(read_bounded(cache_file(server), limit=MAX_FILE_BYTES), type=KnownTools)
    except (OSError, UnsafeFile, msgspec.DecodeError, msgspec.ValidationError):
        return None
    return known if known.format == FORMAT else None


def remember(server: ServerConfig, known: KnownTools) -> None:
    """Keep ``known`` as ``server``'s listing (a temporary file, then renamed); a cache that cannot be written is no loss."""
    file = cache_file(server)
    partial = file.with_name(f".{file.name}.{os.getpid()}.{threading.get_ident()}")
    try:
        private_dir(file.parent)
        with open_private(partial, "w") as handle:
            handle.write(msgspec.json.encode(known).decode())
        os.replace(partial, file)
    except OSError:
        with contextlib.suppress(OSError):
            partial.unlink(missing_ok=True)
