"""Where git runs a repository's hooks from when ``core.hooksPath`` moves them, read from its config files.

No git is run: the repository's ``config`` and the user's global ones (``~/.gitconfig``,
``$XDG_CONFIG_HOME/git/config``) are read directly, the repository's winning. ``include`` and
``includeIf`` are not followed. A relative value is taken from the top of the working tree, as git does.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from pathlib import Path

from engine.safe_read import read_bounded

_MAX_CONFIG = 256 * 1024
_SECTION = re.compile(r'\s*\[\s*([A-Za-z0-9.-]+)\s*("(?:[^"\\]|\\.)*")?\s*\]')


class HooksPaths:
    """Where each repository's hooks run from, for one environment (the global configs are read once)."""

    def __init__(self, env: Mapping[str, str]) -> None:
        self.env = env
        self._global: tuple[str | None] | None = None

    def of(self, git_dir: Path, work_tree: Path) -> Path | None:
        """The folder ``core.hooksPath`` names for the repository in ``git_dir``, or None when it is not set."""
        value = core_hooks_path(_read(git_dir / "config"))
        if value is None:
            value = self._global_value()
        if not value:
            return None
        home = self.env.get("HOME")
        if value.startswith("~/") and home:
            return Path(home) / value[2:]
        path = Path(value)
        return path if path.is_absolute() else work_tree / path

    def _global_value(self) -> str | None:
        if self._global is None:
            values = [core_hooks_path(_read(config)) for config in _global_configs(self.env)]
            self._global = (next((value for value in reversed(values) if value is not None), None),)
        return self._global[0]


def core_hooks_path(text: str) -> str | None:
    """The last ``hooksPath`` of the ``[core]`` section in the git config ``text``, or None."""
    section: str | None = None
    value: str | None = None
    for raw in text.splitlines():
        line = raw
        header = _SECTION.match(line)
        if header is not None:
            section = None if header.group(2) else header.group(1).casefold()
            line = line[header.end() :]
        name, equals, rest = line.partition("=")
        if section == "core" and equals and name.strip().casefold() == "hookspath":
            value = _unquoted(rest)
    return value


def _unquoted(raw: str) -> str:
    """A config value: quotes removed, escapes read, a comment (``#`` or ``;`` outside quotes) dropped."""
    out: list[str] = []
    quoted = False
    chars = iter(raw.strip())
    for char in chars:
        if char == "\\":
            escaped = next(chars, "")
            out.append({"n": "\n", "t": "\t", "b": "\b"}.get(escaped, escaped))
        elif char == '"':
            quoted = not quoted
        elif char in "#;" and not quoted:
            break
        else:
            out.append(char)
    return "".join(out).strip()


def _global_configs(env: Mapping[str, str]) -> tuple[Path, ...]:
    home = env.get("HOME")
    xdg = env.get("XDG_CONFIG_HOME") or (f"{home}/.config" if home else None)
    found = [Path(xdg) / "git" / "config"] if xdg else []
    if home:
        found.append(Path(home) / ".gitconfig")
    return tuple(found)


def _read(path: Path) -> str:
    try:
        return read_bounded(path, limit=_MAX_CONFIG).decode("utf-8", "replace")
    except OSError:  # missing, unreadable, or refused (UnsafeFile is an OSError)
        return ""
