"""The value of a shell word as bash would see it, when it can be known before the command runs.

Quotes and backslashes are removed as bash removes them; a word holding an expansion (``$x``,
``${x}``, ``$(...)``, backquotes, ``$((...))``) has no value until it runs and comes back as ``None``.
"""

from __future__ import annotations

import re

from tree_sitter import Node

from engine.policy.patterns import CommandWord

_GLOB_CHARS = re.compile(r"(?<!\\)[*?\[]|(?<!\\)\{[^}]*(,|\.\.)[^}]*\}")
_SIMPLE_ESCAPES = {
    "a": "\a",
    "b": "\b",
    "e": "\x1b",
    "E": "\x1b",
    "f": "\f",
    "n": "\n",
    "r": "\r",
    "t": "\t",
    "v": "\v",
    "\\": "\\",
    "'": "'",
    '"': '"',
    "?": "?",
}
_NUMERIC_ESCAPE = re.compile(r"\\(?:([0-7]{1,3})|x([0-9a-fA-F]{1,2})|u([0-9a-fA-F]{1,4})|U([0-9a-fA-F]{1,8})|c(.))")


def text_of(node: Node) -> str:
    """The node's source text."""
    return (node.text or b"").decode("utf-8", errors="replace")


def word_value(node: Node) -> CommandWord:
    """The word's value after quote removal, or ``None`` when it holds an expansion."""
    kind = node.type
    text = text_of(node)
    if kind == "word":
        return unescape_unquoted(text)
    if kind == "number":
        return text
    if kind == "raw_string":
        return text[1:-1]
    if kind in ("string", "translated_string"):
        if any(child.type != "string_content" for child in node.named_children):
            return None
        inner = text[1:-1] if kind == "string" else text[2:-1]
        return unescape_double_quoted(inner)
    if kind == "ansi_c_string":
        return decode_ansi_c(text[2:-1])
    if kind in ("concatenation", "command_name"):
        return join_values([word_value(child) for child in node.children])
    return None


def join_values(values: list[CommandWord]) -> CommandWord:
    """The parts of one word joined, or ``None`` when any part is unknown."""
    if any(value is None for value in values):
        return None
    return "".join(value for value in values if value is not None)


def may_expand(node: Node) -> bool:
    """Whether an unquoted part of the word is a glob or a brace expansion (so bash may turn it into other words)."""
    if node.type in ("word", "brace_expression"):
        return node.type == "brace_expression" or _GLOB_CHARS.search(text_of(node)) is not None
    return any(may_expand(child) for child in node.children if child.type in _WORD_PARTS)


_WORD_PARTS = frozenset({"word", "brace_expression", "concatenation", "command_name"})


def unescape_unquoted(text: str) -> str:
    """Backslash removal outside quotes: ``\\x`` is ``x``, a backslash-newline disappears."""
    return _unescape(text, None)


def unescape_double_quoted(text: str) -> str:
    """Backslash removal inside double quotes: only before ``$ ` " \\`` and a newline."""
    return _unescape(text, '$`"\\\n')


def _unescape(text: str, escapable: str | None) -> str:
    """Drop each backslash that escapes a character (any, or one of ``escapable``); a backslash-newline goes."""
    out = []
    i = 0
    while i < len(text):
        if text[i] == "\\" and i + 1 < len(text) and (escapable is None or text[i + 1] in escapable):
            if text[i + 1] != "\n":
                out.append(text[i + 1])
            i += 2
        else:
            out.append(text[i])
            i += 1
    return "".join(out)


def decode_ansi_c(body: str) -> str:
    """The value of ``$'...'``: C-style escapes decoded as bash decodes them."""
    out = []
    i = 0
    while i < len(body):
        char = body[i]
        if char != "\\" or i + 1 >= len(body):
            out.append(char)
            i += 1
            continue
        numeric = _NUMERIC_ESCAPE.match(body, i)
        if numeric:
            out.append(_numeric_escape(numeric))
            i = numeric.end()
        elif body[i + 1] in _SIMPLE_ESCAPES:
            out.append(_SIMPLE_ESCAPES[body[i + 1]])
            i += 2
        else:
            out.append(body[i : i + 2])
            i += 2
    return "".join(out)


def _numeric_escape(match: re.Match[str]) -> str:
    octal, hex2, hex4, hex8, control = match.groups()
    if control is not None:
        return chr(ord(control) & 0x1F)
    number = int(octal, 8) if octal else int(hex2 or hex4 or hex8, 16)
    try:
        return chr(number & 0xFF if octal or hex2 else number)
    except ValueError:
        return "\ufffd"
