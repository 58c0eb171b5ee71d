"""The digest of a project's configuration: every file hive reads from the project that can change what it does.

That is the capability files (settings, permission files, MCP server lists, at every spelling hive
would read, each ``absent`` when missing so a new spelling changes the digest), the agent definitions
and custom commands, and the files those name: the scripts of the project's hooks and the launch
files of its MCP servers. Each file is read by :func:`engine.safe_read.read_bounded` (no link out of
the project, no FIFO or device, a size bound), so the digest is of the bytes hive would read.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

from engine.config.files import CONFIG_FILE_LIMIT
from engine.globs import name_matches
from engine.launch_files import NamedFile
from engine.paths import PROJECT_DIR_NAME
from engine.safe_read import UnsafeFile, read_bounded
from engine.workspace import CAPABILITY_FILES

LISTED_FOLDERS = ((PROJECT_DIR_NAME, "*"), (".claude/commands", "*.md"))
"""Folders whose every file counts: all of ``.ironhive`` (agents, commands, skills, hook scripts) and Claude's commands."""
_MAX_FILE = 1024 * 1024
_MAX_LISTED = 500


def configuration_files(root: Path) -> dict[str, str]:
    """Relative path -> ``sha256:<hex>``, ``absent`` or ``refused: <why>``, for every file the digest covers."""
    files = {name: file_digest(root / name, root, limit=CONFIG_FILE_LIMIT) for name in CAPABILITY_FILES}
    for name in _listed(root):
        if name not in files:
            files[name] = file_digest(root / name, root)
    for named in named_files(root):
        files.setdefault(named.path, named.digest)
    return files


def digest_of(files: dict[str, str]) -> str:
    """One digest over ``files`` (from :func:`configuration_files`)."""
    text = "\n".join(f"{name}\0{files[name]}" for name in sorted(files))
    return "sha256:" + hashlib.sha256(text.encode()).hexdigest()


def file_digest(path: Path, root: Path, *, limit: int = _MAX_FILE) -> str:
    """``sha256:<hex>`` of the file, ``absent``, or ``refused: <why>`` (a link out of the project, a FIFO...)."""
    if not path.exists() and not path.is_symlink():
        return "absent"
    try:
        data = read_bounded(path, limit=limit, within=root)
    except UnsafeFile as refused:
        return f"refused: {refused.reason}"
    return "sha256:" + hashlib.sha256(data).hexdigest()


def _listed(root: Path) -> Iterator[str]:
    """The files of the listed folders, in a stable order, never following a link, at most ``_MAX_LISTED``."""
    count = 0
    for folder, pattern in LISTED_FOLDERS:
        base = root / folder
        if not base.is_dir() or base.is_symlink():
            continue
        for here, folders, files in os.walk(base):  # links to folders are listed as files, never entered
            folders.sort()
            for name in sorted(files + [f for f in folders if os.path.islink(os.path.join(here, f))]):
                if not name_matches(pattern, name):
                    continue
                count += 1
                if count > _MAX_LISTED:
                    yield f"{folder}/(more than {_MAX_LISTED} files)"
                    return
                yield _shown(Path(here) / name, root)


def named_files(root: Path) -> list[NamedFile]:
    """The project files the project's hooks and stdio MCP servers run (scripts, modules, manifests), pinned."""
    from engine.launch_files import command_line_files, launch_files

    found: list[NamedFile] = []
    for command in _hook_commands(root):
        found += command_line_files(command, root, root)
    for argv, cwd in _server_commands(root):
        found += launch_files(argv, cwd, root)
    return found


def _hook_commands(root: Path) -> Iterable[str]:
    for name in CAPABILITY_FILES[:3]:
        data = _raw(root / name, root)
        hooks = data.get("hooks") if isinstance(data, dict) else None
        for hook in hooks if isinstance(hooks, list) else ():
            if isinstance(hook, dict) and isinstance(hook.get("command"), str):
                yield hook["command"]


def _server_commands(root: Path) -> Iterable[tuple[list[str], Path]]:
    for name, key in (
        (f"{PROJECT_DIR_NAME}/plugins.yaml", "plugins"),
        (f"{PROJECT_DIR_NAME}/plugins.yml", "plugins"),
        (".mcp.json", "mcpServers"),
    ):
        data = _raw(root / name, root)
        servers = data.get(key) if isinstance(data, dict) else None
        for entry in servers.values() if isinstance(servers, dict) else ():
            if isinstance(entry, dict) and isinstance(entry.get("command"), str):
                args = [str(a) for a in entry.get("args") or [] if isinstance(a, (str, int, float))]
                cwd = root / str(entry["cwd"]) if isinstance(entry.get("cwd"), str) else root
                yield [entry["command"], *args], cwd


def _raw(path: Path, root: Path) -> Any:
    """The file's data with no checking (the loaders check it); None when absent or unreadable."""
    if not path.is_file():
        return None
    from engine.config.files import read_document
    from engine.errors import ConfigError

    try:
        return read_document(path)[0]
    except ConfigError:
        return None


def _shown(path: Path, root: Path) -> str:
    try:
        return path.relative_to(root).as_posix()
    except ValueError:
        return str(path)
