"""hive's one glob language, for every pattern a person writes: permission rules, search tools, hook matchers, MCP filters.

Paths (``/``-separated, relative or absolute):

- ``*`` matches any characters within one folder name, ``?`` one character (neither matches ``/``);
  both match a leading dot, so ``*`` covers ``.env``.
- ``**`` as a whole segment spans folders: ``**/x`` is ``x`` at any depth, ``a/**/b`` is ``b`` anywhere
  under ``a``, and ``dir/**`` is the folder ``dir`` itself and everything below it. ``**`` inside a
  segment (``src/**.py``) matches across folders too.
- ``[abc]``, ``[a-z]``, and ``[!abc]`` or ``[^abc]`` for "none of these" (never ``/``). A ``\\`` inside
  brackets is a plain backslash.
- ``{a,b}`` is either alternative, and may nest (``src/{a,{b,c}}.py``); braces without a comma are
  plain characters (``{name}`` matches ``{name}``).
- ``\\`` makes the next character plain: ``a\\*b.py`` matches only ``a*b.py``.
- A pattern without ``/`` matches a file name at any depth (``*.py``, ``.env*``, as in ``.gitignore``);
  a pattern with ``/`` matches the whole path. A leading ``./`` is dropped and a trailing ``/`` means
  the folder and everything in it (``build/`` is ``build/**``).

Names (tool names, tool filters, hook matchers) use the same language over one whole name, in which
``*``, ``**`` and ``?`` match any character, ``/`` included (a name has no folders).

Case is each caller's choice: permission rules may set ``ignore_case``; everything else matches case exactly.
"""

from __future__ import annotations

import re
from functools import lru_cache

_NEVER = re.compile(r"(?!)")


class GlobError(ValueError):
    """A pattern that cannot be compiled (an empty one, or a character range such as ``[z-a]``)."""


@lru_cache(maxsize=4096)
def path_glob(pattern: str, *, anchored: bool = False, ignore_case: bool = False) -> re.Pattern[str]:
    """The compiled path glob, to ``fullmatch`` against a path; ``anchored``: match whole paths even without ``/``."""
    glob = pattern.strip()
    while glob.startswith("./"):
        glob = glob[2:]
    if not glob:
        raise GlobError("empty pattern")
    if glob.endswith("/") and len(glob) > 1:
        glob = glob.rstrip("/") + "/**"
    if "/" not in glob and not anchored:
        glob = "**/" + glob
    return _compile(glob, pattern, folders=True, ignore_case=ignore_case)


@lru_cache(maxsize=4096)
def name_glob(pattern: str, *, ignore_case: bool = False) -> re.Pattern[str]:
    """The compiled name glob (``*`` matches any characters), to ``fullmatch`` against a whole name.

    The pattern is taken as it is (callers strip it, and an empty one matches only the empty name).
    """
    return _compile(pattern, pattern, folders=False, ignore_case=ignore_case)


def path_matches(pattern: str, path: str, *, anchored: bool = False, ignore_case: bool = False) -> bool:
    """Whether ``path`` matches the path glob ``pattern``."""
    return path_glob(pattern, anchored=anchored, ignore_case=ignore_case).fullmatch(path) is not None


def name_matches(pattern: str, name: str, *, ignore_case: bool = False) -> bool:
    """Whether ``name`` matches the name glob ``pattern``."""
    return name_glob(pattern, ignore_case=ignore_case).fullmatch(name) is not None


def never() -> re.Pattern[str]:
    """A compiled pattern that matches nothing (for callers that treat an empty pattern as matching no file)."""
    return _NEVER


def _compile(glob: str, original: str, *, folders: bool, ignore_case: bool) -> re.Pattern[str]:
    source = "(?s:" + _translate(glob, folders=folders, original=original) + ")"
    return re.compile(source, re.IGNORECASE if ignore_case else 0)


def _translate(glob: str, *, folders: bool, original: str) -> str:
    one = "[^/]" if folders else "."
    out: list[str] = []
    i = 0
    while i < len(glob):
        char = glob[i]
        if char == "\\" and i + 1 < len(glob):
            out.append(re.escape(glob[i + 1]))
            i += 2
        elif folders and glob.startswith("**/", i):
            out.append("(?:.*/)?")
            i += 3
        elif folders and glob.startswith("/**", i) and i + 3 == len(glob):
            out.append("(?:/.*)?")
            i += 3
        elif glob.startswith("**", i):
            out.append(".*")
            i += 2
        elif char in "*?":
            out.append(one + "*" if char == "*" else one)
            i += 1
        elif char == "[":
            i = _char_class(glob, i, out, folders=folders, original=original)
        elif char == "{":
            i = _alternatives(glob, i, out, folders=folders, original=original)
        else:
            out.append(re.escape(char))
            i += 1
    return "".join(out)


def _char_class(glob: str, start: int, out: list[str], *, folders: bool, original: str) -> int:
    i = start + 1
    negate = i < len(glob) and glob[i] in "!^"
    i += negate
    if i < len(glob) and glob[i] == "]":
        i += 1
    end = glob.find("]", i)
    if end < 0:
        out.append(re.escape("["))
        return start + 1
    body = glob[start + 1 + negate : end]
    body = re.sub(r"([\\\[\]&~|])", r"\\\1", body)
    body = re.sub(r"(?<=-)-", r"\\-", body)  # "--" in a regex set is a future set operation
    regex = ("[^/" if folders else "[^") + body + "]" if negate else "[" + body + "]"
    try:
        re.compile(regex)
    except re.error as exc:
        raise GlobError(f"{exc.msg} in {glob[start : end + 1]!r}") from None
    out.append(regex)
    return end + 1


def _alternatives(glob: str, start: int, out: list[str], *, folders: bool, original: str) -> int:
    end = _closing_brace(glob, start)
    options = _split_alternatives(glob[start + 1 : end]) if end > 0 else []
    if len(options) < 2:
        out.append(re.escape("{"))
        return start + 1
    translated = (_translate(option, folders=folders, original=original) for option in options)
    out.append("(?:" + "|".join(translated) + ")")
    return end + 1


def _closing_brace(glob: str, start: int) -> int:
    """The index of the ``}`` closing the ``{`` at ``start`` (-1: none); nested braces and escapes are skipped."""
    depth = 0
    i = start
    while i < len(glob):
        char = glob[i]
        if char == "\\":
            i += 1
        elif char == "{":
            depth += 1
        elif char == "}":
            depth -= 1
            if depth == 0:
                return i
        i += 1
    return -1


def _split_alternatives(body: str) -> list[str]:
    """``body`` split at its top-level commas (not those in nested braces, nor escaped ones)."""
    parts: list[str] = []
    current: list[str] = []
    depth = 0
    i = 0
    while i < len(body):
        char = body[i]
        if char == "," and depth == 0:
            parts.append("".join(current))
            current = []
        else:
            current.append(body[i : i + 2] if char == "\\" else char)
            i += char == "\\"
            depth += {"{": 1, "}": -1}.get(char, 0)
        i += 1
    parts.append("".join(current))
    return parts
