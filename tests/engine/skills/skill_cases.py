"""Hypothesis strategies for skill folders, for differential tests against the reference validator.

A case is a folder name plus a SKILL.md (or ``skill.md``, another case, a folder in its place, or
nothing) whose bytes are built from pieces that exercise every rule: names with every kind of
character, descriptions near the limits, every YAML scalar style, nested and flow collections,
unknown keys, duplicate keys, odd delimiters, CRLF/CR line endings, BOMs and bad encodings.
"""

from __future__ import annotations

import unicodedata
from dataclasses import dataclass
from pathlib import Path

from hypothesis import strategies as st

SPEC_KEYS = ["name", "description", "license", "allowed-tools", "metadata", "compatibility"]
OTHER_KEYS = ["argument-hint", "version", "Name", "allowed_tools", "author", "disable-model-invocation", "x"]

NAME_CHARS = list("abcdefghijklmnopqrstuvwxyz0123456789") * 3 + [
    "-", "-", "A", "Z", "_", " ", ".", "é", "数", "м", "İ", "Ⅻ", "ⅻ", "ｆ", "ﬁ", "²", "㎏", "\u0301", "\xa0",
    "\u200b", "\u00ad", "ß", "٣", "😀", ":", "#", "'", '"',
]  # fmt: skip
SPECIAL_NAMES = [
    "pdf-tools", "a", "x1", "café", "数据分析", "мир", "straße", "-lead", "trail-", "dou--ble", "UPPER",
    " spaced ", "Title Case", "42", "007", "1e3", "true", "null", "~", "İzmir", "ⅻ", "Ⅻ", "ｆｕｌｌ", "ﬁle-tools",
    "skill²", "㎏" * 33, "e\u0301" * 64, "a" * 64, "a" * 65, "under_score", "-Bad__Name--", "triple---hyphen",
]  # fmt: skip
CLEAN_CHARS = list("abcdefghij klmnop qrstuvwxyz ABC 0123456789 .,;()/") + ["é", "数", "😀", "-", "'"]
TEXT_CHARS = CLEAN_CHARS + [
    ": ", " #", "#", "'", '"', "\\", "`", "*", "&", "!", "@", "%", "[", "]", "{", "}", "|", ">", "-", "---",
    "\xa0", "é", "e\u0301", "😀", "数", "\t", "  ", "\u2028",
]  # fmt: skip
SPECIAL_TEXTS = [
    "", " ", "   ", "Closes issue #12 and more", "Use this skill when: the user asks", "[beta] Generates things",
    "*bold* start", "`code` start", "@mention", "%percent", "'single'", '"double"', "Converts a---b", "null",
    "true", "1.10", "2024-01-01", "multi\nline\ntext", "trailing spaces   ", "  leading spaces",
]  # fmt: skip


_SAMPLERS: dict[tuple[object, ...], st.SearchStrategy[object]] = {}


def pick(draw: st.DrawFn, options: list[object]) -> object:
    """``draw(st.sampled_from(options))`` with the strategy built once (building them is what makes drawing slow)."""
    key = tuple(options)
    sampler = _SAMPLERS.get(key)
    if sampler is None:
        sampler = _SAMPLERS[key] = st.sampled_from(options)
    return draw(sampler)


@dataclass(frozen=True)
class SkillCase:
    """A skill folder to write: ``folder`` holding ``file_name`` with ``content``.

    ``file_name`` None means no skill file at all; ``content`` None means the skill file is a folder.
    """

    folder: str
    file_name: str | None
    content: bytes | None

    def write(self, parent: Path) -> Path:
        """Create the folder under ``parent`` and return its path."""
        folder = parent / self.folder
        folder.mkdir(parents=True)
        if self.file_name is not None:
            target = folder / self.file_name
            if self.content is None:
                target.mkdir()
            else:
                target.write_bytes(self.content)
        (folder / "notes.txt").write_text("not a skill file\n")
        return folder


def text(max_size: int = 40) -> st.SearchStrategy[str]:
    """Free text for descriptions and other values, sometimes right around the length limits."""
    clean = st.lists(st.sampled_from(CLEAN_CHARS), min_size=1, max_size=max_size).map(
        lambda chars: "x" + "".join(chars)
    )
    hostile = st.lists(st.sampled_from(TEXT_CHARS), max_size=max_size).map("".join)
    near_limit = st.tuples(st.sampled_from(["a", "é", "x y ", "😀"]), st.integers(490, 1100)).map(
        lambda pair: (pair[0] * pair[1])[: pair[1]]
    )
    return st.one_of(clean, clean, clean, clean, clean, clean, hostile, st.sampled_from(SPECIAL_TEXTS), near_limit)


def skill_name() -> st.SearchStrategy[str]:
    """Names from the whole range: valid, Unicode, too long, badly hyphenated, uppercase, odd characters."""
    valid = st.from_regex(r"[a-z0-9]{1,10}(-[a-z0-9]{1,8}){0,3}", fullmatch=True)
    random_name = st.lists(st.sampled_from(NAME_CHARS), min_size=1, max_size=24).map("".join)
    return st.one_of(valid, valid, valid, random_name, st.sampled_from(SPECIAL_NAMES))


def render_scalar(value: str, style: str, indent: str) -> str:
    """``value`` as YAML text after ``key:`` (naively: invalid YAML is a fine test case too)."""
    inner = indent + "  "
    if style == "plain":
        return (" " + value.replace("\n", "\n" + inner)) if value else ""
    if style == "single":
        return " '" + value.replace("'", "''") + "'"
    if style == "double":
        return ' "' + value.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n") + '"'
    header = {"literal": "|", "literal_strip": "|-", "folded": ">", "folded_strip": ">-"}[style]
    return " " + header + "".join("\n" + inner + line for line in value.split("\n"))


STYLES = ["plain", "plain", "plain", "single", "double", "literal", "literal_strip", "folded", "folded_strip"]
TEXT = text()
NAME = skill_name()
MAPPING_ITEMS = st.lists(st.tuples(st.sampled_from(["author", "version", "a", "b-c"]), text(12)), max_size=3)
LIST_ITEMS = st.lists(text(12), min_size=1, max_size=3)
FLOW_ITEMS = st.lists(st.sampled_from(["Read", "Grep", "'a b'", "x"]), max_size=3)
KEYS = st.lists(st.sampled_from(SPEC_KEYS * 4 + OTHER_KEYS), max_size=4, unique=True)


@st.composite
def yaml_value(draw: st.DrawFn, key: str, indent: str) -> tuple[str, str | None]:
    """The text after ``key:`` for one entry (a scalar, a nested mapping, a block or flow list), and the scalar."""
    kind = pick(draw, ["scalar"] * 12 + ["mapping", "list", "flow", "empty"])
    inner = indent + pick(draw, ["  ", "    ", " "])
    if kind == "mapping":
        items = draw(MAPPING_ITEMS)
        lines = [f"\n{inner}{k}:{render_scalar(v, pick(draw, STYLES[:5]), inner)}" for k, v in items]
        return "".join(lines), None
    if kind == "list":
        items = draw(LIST_ITEMS)
        return "".join(f"\n{inner}-{render_scalar(v, 'plain', inner)}" for v in items), None
    if kind == "flow":
        items = draw(FLOW_ITEMS)
        return " [" + ", ".join(items) + "]", None
    if kind == "empty":
        return "", None
    value = draw(NAME) if key == "name" else draw(TEXT)
    return render_scalar(value, pick(draw, STYLES), indent), value


@st.composite
def frontmatter(draw: st.DrawFn) -> tuple[str, str]:
    """YAML text for the frontmatter, and the name it (probably) declares."""
    keys = draw(KEYS)
    if pick(draw, [True] * 6 + [False]):
        keys = ["name", "description", *(key for key in keys if key not in ("name", "description"))]
    if pick(draw, [False] * 15 + [True]):
        keys.append(pick(draw, SPEC_KEYS))  # a duplicate, or not
    indent = pick(draw, ["", "", "", "", "  "])
    lines = []
    name = "skill"
    for key in keys:
        rendered, value = draw(yaml_value(key, indent))
        if key == "name" and value is not None:
            name = value
        lines.append(f"{indent}{key}:{rendered}")
        if pick(draw, [False] * 12 + [True]):
            lines.append(pick(draw, ["# a comment", "", "  ", "...", "\t"]))
    return "\n".join(lines), name


@st.composite
def skill_md(draw: st.DrawFn) -> tuple[bytes, str]:
    """The bytes of a SKILL.md and the name it declares."""
    yaml_text, name = draw(frontmatter())
    opening = pick(draw, ["---\n"] * 12 + ["--- \n", "----\n", " ---\n", "\ufeff---\n", "", "--- yaml\n"])
    closing = pick(draw, ["\n---\n"] * 10 + ["\n----\n", "\n...\n---\n", "\n", "---\n"])
    body = pick(draw, ["", "# Title\n\nDo the thing.\n", "Body\n\n---\n\nmore\n", "x" * 300 + "\n"])
    content = opening + yaml_text + closing + body
    if pick(draw, [False] * 20 + [True]):
        content = pick(draw, ["", "---", "---\n---\n", "---\nname: x\n", "no frontmatter\n", "------\n"])
    newline = pick(draw, ["\n"] * 8 + ["\r\n", "\r"])
    return content.replace("\n", newline).encode("utf-8"), name


@st.composite
def skill_case(draw: st.DrawFn, *, allow_crashes: bool = True) -> SkillCase:
    """A folder to validate. With ``allow_crashes``, some make the reference crash (bad bytes, a folder as SKILL.md)."""
    content, name = draw(skill_md())
    stripped = name.strip()
    folder_choices = [stripped] * 12 + [
        stripped.upper(),
        unicodedata.normalize("NFKC", stripped),
        unicodedata.normalize("NFD", stripped),
        "other-folder",
        stripped + "-x",
    ]
    folder = folder_choices[pick(draw, list(range(len(folder_choices))))]  # type: ignore[index]
    if not folder or "/" in folder or "\0" in folder or folder in (".", "..") or len(folder.encode()) > 200:
        folder = "some-folder"
    file_name = pick(draw, ["SKILL.md"] * 30 + ["skill.md", "Skill.md", None])
    payload: bytes | None = content
    damage = pick(draw, ["none"] * 40 + ["folder", "bytes", "utf-16", "bell"]) if allow_crashes else "none"
    if damage == "folder":
        payload = None
    elif damage == "bytes":
        payload = content + b"\xff\xfe bad bytes"
    elif damage == "utf-16":
        payload = content.decode("utf-8").encode("utf-16")
    elif damage == "bell":
        payload = content.replace(b"description:", b"description: \x07bell")
    return SkillCase(folder=folder, file_name=file_name, content=payload)
