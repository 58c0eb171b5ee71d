"""The tree-sitter-bash side of the shell analysis: the parser, node kinds, and reading words off nodes."""

from __future__ import annotations

import re
import threading
from functools import cache

import tree_sitter_bash
from tree_sitter import Language, Node, Parser

from engine.policy.patterns import CommandWord
from engine.policy.shell_commands import Words
from engine.policy.shell_words import join_values, may_expand, word_value

STRUCTURE = frozenset(
    {
        "program",
        "list",
        "subshell",
        "compound_statement",
        "do_group",
        "negated_command",
        "if_statement",
        "elif_clause",
        "else_clause",
        "while_statement",
        "for_statement",
        "c_style_for_statement",
        "case_statement",
        "case_item",
        "function_definition",
        "test_command",
        "variable_assignments",
        "command_substitution",
        "process_substitution",
    }
)
"""Nodes whose children are statements or values to visit in turn."""
VALUES = frozenset(
    {
        "word",
        "number",
        "string",
        "string_content",
        "raw_string",
        "ansi_c_string",
        "translated_string",
        "concatenation",
        "simple_expansion",
        "expansion",
        "arithmetic_expansion",
        "brace_expression",
        "variable_name",
        "special_variable_name",
        "subscript",
        "file_descriptor",
        "test_operator",
        "binary_expression",
        "unary_expression",
        "ternary_expression",
        "postfix_expression",
        "parenthesized_expression",
        "regex",
        "extglob_pattern",
        "array",
        "heredoc_start",
        "heredoc_end",
        "heredoc_content",
        "command_name",
        "comment",
    }
)
"""Nodes that run nothing themselves but may hold a command substitution."""
EVALUATED = frozenset(
    {
        "expansion",
        "subscript",
        "array",
        "arithmetic_expansion",
        "c_style_for_statement",
        "compound_statement",
        "test_command",
    }
)
"""Nodes whose values bash may evaluate as code (see :mod:`engine.policy.shell_evaluation`)."""
RAW_TEXT = frozenset({"word", "regex", "extglob_pattern"})
SUBSTITUTION_MARKERS = re.compile(r"\$[({\[]|`|[<>]\(")
"""Text the grammar left as plain words although bash would substitute in it (inside ``${x#...}`` and the like)."""
_LINE_CONTINUATIONS = re.compile(rb"(?:\\\r?\n)*")


@cache
def _language() -> Language:
    return Language(tree_sitter_bash.language())


_parsers = threading.local()


def parse(text: str) -> Node:
    parser = getattr(_parsers, "parser", None)
    if parser is None:
        parser = _parsers.parser = Parser(_language())
    return parser.parse(text.encode("utf-8")).root_node


def inside_double_quotes(node: Node) -> bool:
    parent = node.parent
    while parent is not None and parent.type not in ("command_substitution", "process_substitution", "program"):
        if parent.type == "string":
            return True
        parent = parent.parent
    return False


def uncovered_text(node: Node) -> str:
    """The node's text without the parts its children (other than plain content) already stand for."""
    data = bytearray(node.text or b"")
    for child in node.named_children:
        if child.type != "heredoc_content":
            start, end = child.start_byte - node.start_byte, child.end_byte - node.start_byte
            data[start:end] = b" " * (end - start)
    return data.decode("utf-8", errors="replace")


def statement_body(node: Node) -> Node | None:
    return node.child_by_field_name("body")


def command_word_nodes(command: Node) -> list[Node]:
    name = command.child_by_field_name("name")
    words = [name] if name is not None else []
    return words + list(command.children_by_field_name("argument"))


def merge_adjacent(nodes: list[Node], source: bytes) -> Words:
    """Word values, joining nodes with nothing between them but line continuations.

    Bash reads ``"g"\\it`` as one word, and a backslash-newline inside a word as nothing at all;
    the grammar makes two words of both.
    """
    words: list[CommandWord] = []
    previous_end = -1
    for node in nodes:
        value = None if node.type == "command_name" and may_expand(node) else word_value(node)
        if words and _LINE_CONTINUATIONS.fullmatch(source[previous_end : node.start_byte]):
            words[-1] = join_values([words[-1], value])
        else:
            words.append(value)
        previous_end = node.end_byte
    return tuple(words)
