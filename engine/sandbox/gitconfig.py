"""The user's git configuration as a sandboxed command sees it: who commits, and how git behaves, without secrets.

With the home hidden, ``~/.gitconfig`` is gone, and ``git commit`` would not know who commits. But the
file can also hold credential helpers, ``url.*.insteadOf`` with tokens in them, ``http.extraHeader``
and ``include`` paths. :func:`filtered_git_config` writes a copy with only the sections of
:data:`KEPT_SECTIONS` (``user`` only ``name`` and ``email``; ``core`` without the settings that run
programs), every value still screened by :func:`~engine.sandbox.environment.is_secret`; the sandbox
shows it read-only as ``~/.gitconfig``. The copy is made again only when the user's files change.
"""

from __future__ import annotations

import hashlib
import threading
from collections.abc import Mapping
from pathlib import Path

from engine.git_config import read_config_file
from engine.git_repository import global_config_files
from engine.sandbox.environment import is_secret

KEPT_SECTIONS = frozenset(
    {
        *("user", "core", "init", "color", "diff", "difftool", "merge", "mergetool", "pull", "push", "rebase"),
        *("alias", "fetch", "status", "log", "format", "pretty", "commit", "tag", "branch", "advice", "filter"),
        *("safe", "column", "grep", "help", "blame", "rerere", "submodule", "interactive", "feature", "lfs"),
    }
)
"""The sections copied; ``credential``, ``url``, ``http``, ``include``, ``sendemail``, ``gpg``... are not."""
_USER_KEYS = frozenset({"user.name", "user.email"})
_DROPPED_CORE = frozenset({"core.sshcommand", "core.askpass", "core.hookspath", "core.fsmonitor", "core.gitproxy"})
_lock = threading.Lock()
_made: dict[tuple[object, ...], Path | None] = {}


def filtered_git_config(env: Mapping[str, str], folder: Path) -> Path | None:
    """A file in ``folder`` with the kept part of the user's global git configuration, or None when it has none."""
    sources = global_config_files(env)
    key = tuple((str(path), *_stamp(path)) for path in sources)
    with _lock:
        if key in _made:
            earlier = _made[key]
            if earlier is None or earlier.is_file():  # made again if a cleaner removed it
                return earlier
        made = _write(_kept(sources), folder)
        _made[key] = made
        return made


def _stamp(path: Path) -> tuple[int, int]:
    try:
        st = path.stat()
    except OSError:
        return (0, -1)
    return (st.st_mtime_ns, st.st_size)


def _kept(sources: tuple[Path, ...]) -> list[tuple[str, str | None]]:
    entries: list[tuple[str, str | None]] = []
    for source in sources:
        entries += [(key, value) for key, value in _entries(source) if _keep(key, value)]
    return entries


def _entries(source: Path) -> list[tuple[str, str | None]]:
    """``(key, value)`` pairs of one file, in order (None: a bare name, a true boolean), read as git reads it
    (:mod:`engine.git_config`: hive never runs git itself); ``include`` is not followed."""
    return [(entry.key, entry.value) for entry in read_config_file(source).entries]


def _keep(key: str, value: str | None) -> bool:
    section = key.split(".", 1)[0].lower()
    lowered = key.lower()
    if section not in KEPT_SECTIONS or lowered in _DROPPED_CORE:
        return False
    if section == "user" and lowered not in _USER_KEYS:
        return False
    return not is_secret(key.replace(".", "_"), value or "")


def _write(entries: list[tuple[str, str | None]], folder: Path) -> Path | None:
    if not entries:
        return None
    text = _render(entries)
    path = folder / f"gitconfig-{hashlib.sha256(text.encode()).hexdigest()[:16]}"
    if not path.is_file():
        folder.mkdir(mode=0o700, parents=True, exist_ok=True)
        partial = path.with_suffix(".partial")
        partial.write_text(text, encoding="utf-8")
        partial.chmod(0o444)
        partial.replace(path)
    return path


def _render(entries: list[tuple[str, str | None]]) -> str:
    lines: list[str] = []
    current = ""
    for key, value in entries:
        section, name = key.rsplit(".", 1)
        if section != current:
            lines.append(_header(section))
            current = section
        lines.append(f"\t{name}" if value is None else f"\t{name} = {_quoted(value)}")
    return "\n".join(lines) + "\n"


def _header(section: str) -> str:
    head, dot, sub = section.partition(".")
    if not dot:
        return f"[{head}]"
    return f'[{head} "{sub.replace(chr(92), chr(92) * 2).replace(chr(34), chr(92) + chr(34))}"]'


def _quoted(value: str) -> str:
    escaped = value.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n").replace("\t", "\\t")
    return f'"{escaped}"'
