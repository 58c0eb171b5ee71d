"""The two glob translators hive had before :mod:`engine.globs`, kept only as oracles for its property tests.

``policy_matches`` is the permission rules' old path glob, ``search_matches`` the search tools' old one
(both copied unchanged from the code they replaced). Not for use outside the tests.
"""

from __future__ import annotations

import re
import warnings


def policy_matches(pattern: str, path: str) -> bool | None:
    """The old rules' verdict (None: the old code could not compile the pattern)."""
    glob = pattern.strip()
    if glob.startswith("./"):
        glob = glob[2:]
    if glob.endswith("/") and len(glob) > 1:
        glob = glob.rstrip("/") + "/**"
    if "/" not in glob:
        glob = "**/" + glob
    return _fullmatch(_policy_translate(glob, within_segment="[^/]"), path, 0)


def policy_name_matches(pattern: str, name: str) -> bool | None:
    """The old rules' verdict for a name glob (None: not compilable)."""
    return _fullmatch(_policy_translate(pattern.strip(), within_segment="."), name, 0)


def search_matches(pattern: str, path: str) -> bool | None:
    """The old search tools' verdict for a pattern relative to the search root (None: not compilable)."""
    pattern = pattern.strip()
    while pattern.startswith("./"):
        pattern = pattern[2:]
    pattern = pattern.lstrip("/")
    subject = path.rsplit("/", 1)[-1] if "/" not in pattern else path
    verdict = _fullmatch(_translate(pattern) + r"\Z", subject, re.DOTALL)
    return verdict


def _fullmatch(regex: str, subject: str, flags: int) -> bool | None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            compiled = re.compile(regex, flags)
        except re.error:
            return None
    return compiled.fullmatch(subject) is not None


# --- the rules' old translator (engine/policy/patterns.py) ---------------------------------


def _policy_translate(glob: str, *, within_segment: str) -> str:
    out: list[str] = []
    i = 0
    while i < len(glob):
        char = glob[i]
        if glob.startswith("**/", i):
            out.append("(?:.*/)?")
            i += 3
        elif glob.startswith("/**", i) and i + 3 == len(glob):
            out.append("(?:/.*)?")
            i += 3
        elif glob.startswith("**", i):
            out.append(".*")
            i += 2
        elif char == "*":
            out.append(within_segment + "*")
            i += 1
        elif char == "?":
            out.append(within_segment)
            i += 1
        elif char == "[":
            i = _policy_char_class(glob, i, out)
        elif char == "{":
            i = _policy_alternatives(glob, i, out, within_segment)
        else:
            out.append(re.escape(char))
            i += 1
    return "".join(out)


def _policy_char_class(glob: str, start: int, out: list[str]) -> int:
    end = glob.find("]", start + 2)
    if end < 0:
        out.append(re.escape("["))
        return start + 1
    body = glob[start + 1 : end]
    if body.startswith("!"):
        body = "^" + body[1:]
    out.append("[" + body.replace("\\", "\\\\") + "]")
    return end + 1


def _policy_alternatives(glob: str, start: int, out: list[str], within_segment: str) -> int:
    end = glob.find("}", start)
    if end < 0 or "," not in glob[start:end]:
        out.append(re.escape("{"))
        return start + 1
    options = glob[start + 1 : end].split(",")
    out.append("(?:" + "|".join(_policy_translate(o, within_segment=within_segment) for o in options) + ")")
    return end + 1


# --- the search tools' old translator (engine/tools/globs.py) --------------------------------


def _translate(pattern: str) -> str:
    out: list[str] = []
    i, n = 0, len(pattern)
    while i < n:
        char = pattern[i]
        if char == "*":
            i = _star(pattern, i, out)
            continue
        if char == "?":
            out.append("[^/]")
        elif char == "[":
            end = _closing_bracket(pattern, i)
            if end < 0:
                out.append(re.escape(char))
            else:
                out.append(_char_class(pattern[i + 1 : end]))
                i = end
        elif char == "{":
            end = _closing_brace(pattern, i)
            if end < 0:
                out.append(re.escape(char))
            else:
                alternatives = _split_alternatives(pattern[i + 1 : end])
                out.append("(?:" + "|".join(_translate(alt) for alt in alternatives) + ")")
                i = end
        elif char == "\\" and i + 1 < n:
            i += 1
            out.append(re.escape(pattern[i]))
        else:
            out.append(re.escape(char))
        i += 1
    return "".join(out)


def _star(pattern: str, i: int, out: list[str]) -> int:
    j = i
    while j < len(pattern) and pattern[j] == "*":
        j += 1
    whole_segment = (i == 0 or pattern[i - 1] == "/") and (j == len(pattern) or pattern[j] == "/")
    if j - i >= 2 and whole_segment:
        if j == len(pattern):
            out.append(".*")
            return j
        out.append("(?:.*/)?")
        return j + 1
    out.append("[^/]*")
    return j


def _closing_bracket(pattern: str, start: int) -> int:
    i = start + 1
    if i < len(pattern) and pattern[i] in "!^":
        i += 1
    if i < len(pattern) and pattern[i] == "]":
        i += 1
    end = pattern.find("]", i)
    return end


def _char_class(body: str) -> str:
    negate = body[:1] in ("!", "^")
    if negate:
        body = body[1:]
    escaped = body.replace("\\", "\\\\").replace("[", "\\[").replace("]", "\\]")
    return f"[^/{escaped}]" if negate else f"[{escaped}]"


def _closing_brace(pattern: str, start: int) -> int:
    depth = 0
    for i in range(start, len(pattern)):
        if pattern[i] == "{":
            depth += 1
        elif pattern[i] == "}":
            depth -= 1
            if depth == 0:
                return i
    return -1


def _split_alternatives(body: str) -> list[str]:
    parts: list[str] = []
    current: list[str] = []
    depth = 0
    for char in body:
        if char == "," and depth == 0:
            parts.append("".join(current))
            current = []
            continue
        depth += {"{": 1, "}": -1}.get(char, 0)
        current.append(char)
    parts.append("".join(current))
    return parts
