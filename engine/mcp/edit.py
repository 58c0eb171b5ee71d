"""Add and remove servers in a ``plugins.yaml`` as text, so its comments, order and layout stay as they were.

No round-trip YAML library is installed, so the file is edited line by line: an entry is the line
naming it under ``plugins:`` plus the lines indented deeper below it (comments directly above the
next entry stay with that entry). The edited text is parsed and validated before it replaces the
file (a temporary file, then ``os.replace``), so a failed edit never leaves a broken file behind.
"""

from __future__ import annotations

import json
import os
import re
import tempfile
from collections.abc import Mapping, Sequence
from pathlib import Path

import yaml
from msgspec import Struct, field

from engine.config.files import CONFIG_FILE_LIMIT
from engine.config.yaml_reader import load_yaml
from engine.disk_full import writing
from engine.errors import UserError
from engine.mcp.entries import PluginEntry, Transport, check_server_name, plugin_entry, plugins_file
from engine.paths import user_config_dir
from engine.private_files import private_dir
from engine.safe_read import UnsafeFile, read_bounded

_PLUGINS_LINE = re.compile(r"^plugins:\s*(#.*)?$")
_PLAIN = re.compile(r"^[A-Za-z/._~][A-Za-z0-9/._~+@=:-]*(?<!:)$")
_RESERVED = {"true", "false", "yes", "no", "on", "off", "null", "y", "n", "~"}
DEFAULT_INDENT = "  "


class NewServer(Struct, frozen=True):
    """What ``hive mcp add`` was given: one server entry to write."""

    name: str
    transport: Transport = "stdio"
    command: str | None = None
    args: Sequence[str] = ()
    url: str | None = None
    env: Mapping[str, str] = field(default_factory=dict)
    headers: Mapping[str, str] = field(default_factory=dict)

    def checked(self) -> PluginEntry:
        """The entry as ``plugins.yaml`` validates it; raises ``UserError`` with the reason."""
        try:
            check_server_name(self.name)
            return plugin_entry(self.as_dict())
        except ValueError as exc:  # Invalid included
            raise UserError(_first_problem(exc)) from None

    def as_dict(self) -> dict[str, object]:
        """The entry's keys, only those that were given."""
        data: dict[str, object] = {"transport": self.transport}
        if self.command is not None:
            data["command"] = self.command
        if self.args:
            data["args"] = list(self.args)
        if self.url is not None:
            data["url"] = self.url
        if self.env:
            data["env"] = dict(self.env)
        if self.headers:
            data["headers"] = dict(self.headers)
        return data


def add_server(path: Path, server: NewServer, *, force: bool = False) -> bool:
    """Write ``server`` into ``path`` (created if missing); True when it replaced an entry of the same name.

    A name already in the file is a ``UserError`` unless ``force``, which replaces that entry where it stands.
    """
    server.checked()
    text = _read(path) if path.exists() else ""
    lines = _prepared(text, path)
    child = _child_indent(lines)
    block = render_entry(server, child)
    span = _entry_span(lines, server.name, child)
    if span is not None and not force:
        raise UserError(f"{path}: server {server.name!r} is already there (use --force to replace it)")
    if span is not None:
        lines[span[0] : span[1]] = block
    else:
        end = _section_end(lines)
        lines[end:end] = block
    _write_checked(path, lines)
    return span is not None


def _read(path: Path) -> str:
    """The text of the list ``path`` through hive's safe reader; a FIFO, a device or a huge file is a ``UserError``."""
    try:
        return read_bounded(path, limit=CONFIG_FILE_LIMIT).decode("utf-8")
    except UnsafeFile as refused:
        raise UserError(f"{path}: hive did not read it: it {refused.reason}") from None


def remove_server(path: Path, name: str) -> bool:
    """Delete server ``name`` (and the comment lines right above it) from ``path``; False when the file does not name it."""
    if not path.exists():
        return False
    lines = _prepared(_read(path), path)
    child = _child_indent(lines)
    span = _entry_span(lines, name, child)
    if span is None:
        return False
    start = span[0]
    while start - 1 > _plugins_index(lines) and lines[start - 1].startswith(child + "#"):
        start -= 1  # the comment lines right above the entry are about it
    del lines[start : span[1]]
    if 0 < start < len(lines) and not lines[start - 1].strip() and not lines[start].strip():
        del lines[start]  # no double blank line where the entry was
    _write_checked(path, lines)
    return True


def render_entry(server: NewServer, indent: str = DEFAULT_INDENT) -> list[str]:
    """The entry's lines, indented under ``plugins:`` as the file indents (``indent`` per level)."""
    inner = indent * 2
    lines = [f"{indent}{_key(server.name)}:"]
    for key, value in server.as_dict().items():
        if isinstance(value, list):
            lines.append(f"{inner}{key}: [{', '.join(_scalar(v) for v in value)}]")
        elif isinstance(value, dict):
            lines.append(f"{inner}{key}:")
            lines.extend(f"{inner}{indent}{_key(k)}: {_scalar(v)}" for k, v in value.items())
        else:
            lines.append(f"{inner}{key}: {_scalar(str(value))}")
    return lines


def _prepared(text: str, path: Path) -> list[str]:
    """The file's lines with a block-style ``plugins:`` line in them (added or unfolded from ``{}``)."""
    lines = text.splitlines()
    if any(_PLUGINS_LINE.match(line) for line in lines):
        return lines
    empty = [i for i, line in enumerate(lines) if re.match(r"^plugins:\s*(\{\s*\}|null|~)?\s*(#.*)?$", line)]
    if empty:
        lines[empty[0]] = "plugins:"
        return lines
    if any(line.startswith("plugins:") for line in lines):
        raise UserError(f"{path}: 'plugins:' is written inline; hive edits only the block style (one entry per line)")
    return [*lines, "plugins:"]


def _plugins_index(lines: list[str]) -> int:
    return next(i for i, line in enumerate(lines) if _PLUGINS_LINE.match(line))


def _section_end(lines: list[str]) -> int:
    """The index after the last line that belongs to the ``plugins:`` mapping."""
    start = _plugins_index(lines)
    end = start + 1
    for i in range(start + 1, len(lines)):
        line = lines[i]
        if line.strip() and not line[0].isspace() and not line.startswith("#"):
            break
        if line.strip() and not line.lstrip().startswith("#"):
            end = i + 1
    return end


def _child_indent(lines: list[str]) -> str:
    """The indentation of the server names under ``plugins:`` (two spaces when there is none yet)."""
    start = _plugins_index(lines)
    for line in lines[start + 1 : _section_end(lines)]:
        if line.strip() and not line.lstrip().startswith("#"):
            return line[: len(line) - len(line.lstrip())]
    return DEFAULT_INDENT


def _entry_span(lines: list[str], name: str, child: str) -> tuple[int, int] | None:
    """Where entry ``name`` starts and ends (its key line and the deeper lines below it)."""
    start, end = _plugins_index(lines) + 1, _section_end(lines)
    keys = {f"{name}:", f'"{name}":', f"'{name}':"}
    for i in range(start, end):
        line = lines[i]
        if not line.startswith(child) or line[len(child) :][:1].isspace():
            continue
        head = line[len(child) :].split("#", 1)[0].strip()
        if not any(head == key or head.startswith(key + " ") for key in keys):
            continue
        stop = i + 1
        for j in range(i + 1, end):
            below = lines[j]
            if not below.strip():
                continue
            indent = len(below) - len(below.lstrip())
            if indent <= len(child):
                break
            stop = j + 1
        return i, stop
    return None


def _write_checked(path: Path, lines: list[str]) -> None:
    text = "\n".join(lines).rstrip("\n") + "\n"
    try:
        data = load_yaml(text)  # the reader that will load it: no aliases, no repeated keys
        plugins_file(data)
    except (yaml.YAMLError, ValueError) as exc:
        raise UserError(f"{path}: the edited file would not be valid ({_first_problem(exc)}); left unchanged") from None
    with writing(path.name, path.parent, "it is as it was (nothing was changed)"):
        _replace(path, text)


def _replace(path: Path, text: str) -> None:
    """Write ``text`` to ``path`` atomically: a temporary file beside it, renamed over it (removed on failure)."""
    users = path.parent == user_config_dir()  # the user's own file may hold tokens: 0600 in a 0700 folder
    if users:
        private_dir(path.parent)
    else:
        path.parent.mkdir(parents=True, exist_ok=True)
    handle, temp = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)  # made 0600
    try:
        with os.fdopen(handle, "w", encoding="utf-8") as out:
            out.write(text)
        if path.exists() and not users:
            os.chmod(temp, path.stat().st_mode & 0o777)
        os.replace(temp, path)
    except BaseException:
        Path(temp).unlink(missing_ok=True)
        raise


def _scalar(value: str) -> str:
    if _PLAIN.match(value) and value.lower() not in _RESERVED:
        return value
    return json.dumps(value, ensure_ascii=False)


def _key(name: str) -> str:
    return name if _PLAIN.match(name) and name.lower() not in _RESERVED else json.dumps(name)


def _first_problem(exc: Exception) -> str:
    return str(exc).splitlines()[0]
