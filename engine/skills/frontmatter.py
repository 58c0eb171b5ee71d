"""Finding, reading and splitting SKILL.md the way the reference validator (skills-ref 0.1.1) does.

The reference has no notion of lines here: the file must start with the three characters ``---`` and
the YAML is everything up to the next ``---``, wherever it occurs. The YAML is read in strictyaml's
dialect (every scalar a string, no flow style, anchors, tags or duplicate keys). Where the reference
crashes (bytes that are not UTF-8, a SKILL.md that is a folder, characters strictyaml cannot handle)
these functions raise :class:`SkillFileError` with a plain message instead.
"""

from __future__ import annotations

import functools
import re
import stat
from pathlib import Path
from typing import TYPE_CHECKING, Any

from engine.safe_read import UnsafeFile, read_bounded
from engine.skills.yaml_subset import parse_simple_mapping

if TYPE_CHECKING:
    from engine.skills.strict_cache import Verdict

SKILL_FILE_NAMES = ("SKILL.md", "skill.md")
"""The names the reference accepts, in the order it looks for them."""
MAX_SKILL_FILE_BYTES = 1024 * 1024
"""The most hive reads of a SKILL.md or an agent file (the reference reads any size; real ones are a few KiB)."""


class SkillFileError(Exception):
    """SKILL.md cannot be used; ``str(error)`` is the message, worded as the reference words it."""


def find_skill_file(directory: Path) -> Path | None:
    """``SKILL.md`` in ``directory``, else ``skill.md``, else None (anything that exists counts, as in the reference)."""
    for name in SKILL_FILE_NAMES:
        candidate = directory / name
        if candidate.exists():
            return candidate
    return None


def read_skill_text(path: Path) -> str:
    """The file as UTF-8 text with universal newlines (CRLF and lone CR become LF), as Python's text mode reads it."""
    try:
        mode = path.stat().st_mode
        if stat.S_ISDIR(mode):
            raise SkillFileError(f"{path.name} is a directory, not a file")
        if not stat.S_ISREG(mode):  # a FIFO or a device would block or never end
            raise SkillFileError(f"{path.name} is not a regular file")
        data = read_bounded(path, limit=MAX_SKILL_FILE_BYTES)
    except UnsafeFile as refused:  # too large, or no longer the regular file checked above
        raise SkillFileError(f"{path.name} {refused}") from None
    except OSError as exc:
        raise SkillFileError(f"Cannot read {path.name}: {exc.strerror or exc}") from None
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        raise SkillFileError(
            f"{path.name} is not valid UTF-8 text ({exc.reason} at byte {exc.start}, line {line}); save it as UTF-8"
        ) from None
    return text.replace("\r\n", "\n").replace("\r", "\n") if "\r" in text else text


def split_frontmatter(content: str) -> tuple[str, str]:
    """The YAML text and the body (stripped), cut at ``---`` exactly as the reference cuts them."""
    if not content.startswith("---"):
        raise SkillFileError("SKILL.md must start with YAML frontmatter (---)")
    parts = content.split("---", 2)
    if len(parts) < 3:
        raise SkillFileError("SKILL.md frontmatter not properly closed with ---")
    return parts[1], parts[2].strip()


def parse_yaml_mapping(text: str) -> dict[str, Any]:
    """The frontmatter mapping, read in strictyaml's dialect; errors carry strictyaml's own message."""
    data: Any = parse_simple_mapping(text)
    if data is None:
        data = _strictyaml_load(text)
    if not isinstance(data, dict):
        raise SkillFileError("SKILL.md frontmatter must be a YAML mapping")
    return data


def parse_skill_content(content: str) -> tuple[dict[str, Any], str]:
    """Frontmatter mapping and body of SKILL.md text."""
    yaml_text, body = split_frontmatter(content)
    return parse_yaml_mapping(yaml_text), body


def load_skill_file(path: Path) -> tuple[dict[str, Any], str]:
    """Read and parse the SKILL.md at ``path``: its frontmatter mapping and its body."""
    return parse_skill_content(read_skill_text(path))


def _strictyaml_load(text: str) -> Any:
    """strictyaml's reading of ``text``, remembered across runs (:mod:`engine.skills.strict_cache`)."""
    from engine.skills.strict_cache import remembered_readings

    verdict = remembered_readings().verdict(text, _strictyaml_verdict)
    if verdict.error:
        raise SkillFileError(verdict.error)
    return verdict.data


def _strictyaml_verdict(text: str) -> Verdict:
    import strictyaml  # type: ignore[import-untyped]

    from engine.skills.strict_cache import Verdict

    try:
        return Verdict(data=strictyaml.load(text).data)
    except strictyaml.YAMLError as exc:
        return Verdict(error=f"Invalid YAML in frontmatter: {exc}")
    except Exception as exc:  # strictyaml itself crashes on some input; say what we can
        return Verdict(error=f"Invalid YAML in frontmatter: {_describe_crash(text, exc)}")


@functools.cache
def _not_printable() -> re.Pattern[str]:
    """The characters YAML does not allow, compiled on first use (about 5 ms, and only a crash needs it)."""
    return re.compile("[^\t\n\r\x20-\x7e\x85\xa0-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]")


def _describe_crash(text: str, exc: Exception) -> str:
    bad = _not_printable().search(text)
    if bad is not None:
        line = text.count("\n", 0, bad.start()) + 1
        return f"character U+{ord(bad.group()):04X} (line {line}) is not allowed in YAML"
    return f"the YAML parser failed ({type(exc).__name__}: {exc})"
