"""The dangerous shapes ``guards.dangerous_arguments`` looks for in an MCP tool's arguments.

The permission rules judge an MCP tool by its name; what its arguments do is the server's business,
so a prompt injection that picks a harmless-looking tool can still hand it ``rm -rf /``. This check
reads every string in the arguments (nested ones too), by the name of the argument that holds it,
for four shapes, and names each it finds:

1. **a destructive command** in an argument named like a command (``command``, ``cmd``, ``script``,
   ``shell``...): ``rm`` recursive or forced on ``/``, ``~``, ``$HOME``, ``*`` or ``..``; ``mkfs``;
   ``dd of=/dev/...``; a write to a disk device; ``chmod -R 777 /``; a fork bomb; a download piped
   into a shell;
2. **a path outside the project** in an argument named like a path (``path``, ``file``, ``dir``,
   ``destination``, ``*_path``...), or a ``file://`` URL anywhere; and a path into ``~/.ssh``,
   ``~/.aws``, ``~/.gnupg``, ``/etc/shadow``, ``/etc/sudoers`` anywhere (judged as written: ``~`` and
   ``..`` resolved, links not followed, since the server opens it, not hive);
3. **shell metacharacters** (``;`` ``|`` ``&`` backquote ``$(`` ``${`` ``<`` ``>`` a newline) in an
   argument that names something and is no command: a path, a name, an id, a branch, a URL;
4. **a URL to a private address**: loopback, private, link-local (the cloud metadata address
   ``169.254.169.254``), shared or reserved addresses, written in any form ``inet_aton`` reads
   (``2130706433``, ``0x7f.1``), and names that only resolve inside a network (``localhost``,
   ``*.localhost``, ``*.local``, ``*.internal``). Names are not looked up (hive stays offline here),
   so a public name that resolves to a private address is not caught: that is the server's fetcher's job.

Heuristic by nature and meant to be: it catches the usual shapes, not every way of doing harm.
"""

from __future__ import annotations

import ipaddress
import os
import re
import socket
from collections.abc import Iterator
from pathlib import PurePosixPath
from typing import Any
from urllib.parse import unquote, urlsplit

_COMMAND_KEYS = frozenset({"command", "cmd", "commands", "script", "shell", "bash", "sh", "exec", "run", "cmdline"})
_PATH_KEYS = frozenset(
    {"path", "paths", "file", "files", "filename", "filepath", "dir", "directory", "folder", "dest", "destination",
     "target", "output", "cwd", "root", "source", "src", "location"}
)  # fmt: skip
_PATH_SUFFIXES = ("_path", "_file", "_dir", "_directory", "_folder", "path", "paths")
_URL_KEYS = frozenset({"url", "uri", "urls", "href", "link", "endpoint", "webhook"})
_NAME_KEYS = frozenset(
    {"name", "id", "branch", "ref", "tag", "repo", "repository", "owner", "package", "host", "hostname", "user",
     "username", "version", "image", "container", "namespace", "project", "org", "organization", "database", "table"}
)  # fmt: skip
_TARGETS = r"(?:/|/\*|~/?|\$HOME/?|\$\{HOME\}/?|\*|\.\./?|\./?)"
_DESTRUCTIVE = tuple(
    (label, re.compile(pattern))
    for label, pattern in (
        ("a recursive or forced rm of everything", rf"\brm\s+(?:-{{1,2}}[\w-]*\s+)*(?:-[a-zA-Z]*[rRf][a-zA-Z]*|"
         rf"--recursive|--force)\s+(?:-{{1,2}}[\w-]*\s+)*{_TARGETS}(?=$|[\s;&|)])"),
        ("mkfs (formats a disk)", r"\bmkfs(?:\.\w+)?\b"),
        ("dd onto a device", r"\bdd\b[^\n;|&]*\bof=/dev/"),
        ("a write to a disk device", r">\s*/dev/(?:sd|nvme|hd|xvd|vd|disk)\w*"),
        ("chmod 777 of the whole disk", r"\bchmod\s+(?:-\w+\s+)*0?777\s+/(?=$|\s)"),
        ("a fork bomb", r":\s*\(\s*\)\s*\{\s*:\s*\|\s*:\s*&\s*\}\s*;\s*:"),
        ("a download piped into a shell", r"\b(?:curl|wget)\b[^\n|]*\|\s*(?:sudo\s+)?(?:ba|z|da|k)?sh\b"),
    )
)  # fmt: skip
_METACHARACTERS = re.compile(r"[;|&`<>\n\r]|\$[({]")
_URL_METACHARACTERS = re.compile(r"[`\n\r]|\$[({]")
_URL = re.compile(r"\b(?:https?|ftp|wss?|file)://[^\s\"'<>`]+", re.IGNORECASE)
_SECRET_PLACES = ("~/.ssh", "~/.aws", "~/.gnupg", "~/.docker/config.json", "~/.kube", "/etc/shadow", "/etc/sudoers")
_LOCAL_NAMES = re.compile(r"(?:^|\.)(?:localhost|local|internal|localdomain|home\.arpa)$|^metadata$", re.IGNORECASE)


def dangerous_shapes(arguments: dict[str, Any], project: str) -> list[str]:
    """What in ``arguments`` looks dangerous, one line each (``'path': ~/.ssh/id_rsa is in ~/.ssh``)."""
    found: list[str] = []
    for key, value in _strings(arguments, ""):
        found += [f"{key!r}: {problem}" for problem in _problems(key.lower(), value, project)]
    return list(dict.fromkeys(found))


def _strings(value: Any, key: str) -> Iterator[tuple[str, str]]:
    """Every string in ``value`` with the name of the argument that holds it (a list's items take its name)."""
    if isinstance(value, str):
        yield key, value
    elif isinstance(value, dict):
        for name, item in value.items():
            yield from _strings(item, str(name))
    elif isinstance(value, list | tuple):
        for item in value:
            yield from _strings(item, key)


def _problems(key: str, value: str, project: str) -> list[str]:
    problems: list[str] = []
    if key in _COMMAND_KEYS:
        problems += [f"{label} ({_shown(value)})" for label, pattern in _DESTRUCTIVE if pattern.search(value)]
    is_path = key in _PATH_KEYS or key.endswith(_PATH_SUFFIXES)
    if is_path:
        problems += _path_problems(value, project, outside_counts=True)
    if (is_path or key in _NAME_KEYS) and _METACHARACTERS.search(value):
        problems.append(f"shell metacharacters in a name or path ({_shown(value)})")
    if key in _URL_KEYS and _URL_METACHARACTERS.search(value):
        problems.append(f"shell metacharacters in a URL ({_shown(value)})")
    if not is_path:
        problems += _path_problems(value, project, outside_counts=False)
    problems += [problem for url in _URL.findall(value) if (problem := _url_problem(url, project))]
    return problems


def _path_problems(value: str, project: str, *, outside_counts: bool) -> list[str]:
    """A path into a secret place (anywhere), or outside the project (when the argument holds a path)."""
    if "\n" in value or not value.strip():
        return []
    resolved = _resolved(value.strip(), project)
    for place in _SECRET_PLACES:
        where = os.path.expanduser(place)
        if resolved == where or resolved.startswith(where.rstrip("/") + "/"):
            return [f"{_shown(value)} is in {place}"]
    if outside_counts and not _inside(resolved, project):
        return [f"{_shown(value)} is outside the project ({project})"]
    return []


def _resolved(raw: str, project: str) -> str:
    path = unquote(raw[len("file://") :]) if raw.lower().startswith("file://") else raw
    path = os.path.expanduser(path)
    return os.path.normpath(os.path.join(project, path))


def _inside(path: str, project: str) -> bool:
    return PurePosixPath(path).is_relative_to(project) if project.startswith("/") else path.startswith(project)


def _url_problem(url: str, project: str) -> str | None:
    parts = urlsplit(url)
    if parts.scheme.lower() == "file":
        problems = _path_problems(url, project, outside_counts=True)
        return problems[0] if problems else None
    host = (parts.hostname or "").rstrip(".")
    if not host:
        return None
    if _LOCAL_NAMES.search(host):
        return f"a URL to a local name ({host})"
    address = _address(host)
    if address is not None and (not address.is_global or address.is_multicast):
        return f"a URL to a private address ({host})"
    return None


def _address(host: str) -> ipaddress.IPv4Address | ipaddress.IPv6Address | None:
    try:
        address = ipaddress.ip_address(host)
    except ValueError:
        try:  # the forms a URL parser may still take for an address: 2130706433, 0x7f.1, 127.1
            return ipaddress.IPv4Address(socket.inet_aton(host))
        except OSError:
            return None
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
        return address.ipv4_mapped
    return address


def _shown(value: str, limit: int = 80) -> str:
    flat = " ".join(value.split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"
