"""Places where bash evaluates a value as code, so a variable's content can run commands.

A value bash only substitutes is data; a value bash *evaluates* is code: ``x='a[$(id)]'`` runs
``id`` under ``$((x))``, ``(( x ))``, ``[[ x -eq 0 ]]``, ``${!x}``, ``let x``, ``declare -i``,
``printf -v x``, ``read x``-style names and every array subscript, and ``${x@P}`` runs the command
substitutions the value holds. Each function here returns why a construct is evaluated (a reason to
ask), or None when it is not, or only on literals.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from tree_sitter import Node

from engine.policy.patterns import CommandWord
from engine.policy.shell_commands import Words, command_name
from engine.policy.shell_words import text_of

ARITHMETIC = "bash evaluates arithmetic on a variable's value as code (a value like a[$(cmd)] runs cmd)"
SUBSCRIPT = "bash evaluates an array subscript as arithmetic, which runs the commands a variable's value holds"
INDIRECTION = "${!name} takes a variable name from a value, and bash evaluates that name's subscript as code"
PROMPT = "${name@P} expands a value as a prompt, which runs the command substitutions it holds"
LET = "let evaluates its arguments as arithmetic, which runs the commands a variable's value holds"
PRINTF_V = "printf -v assigns to a name bash evaluates (an array subscript runs commands)"
DECLARE = "declare -i and -n make later assignments evaluate their values as code"
NAME_UNKNOWN = "a variable name only known when it runs may hold an array subscript, which bash evaluates as code"
MAPFILE_CALLBACK = "mapfile -C runs the callback it is given"

_LITERAL_INDEX = re.compile(r"\s*(?:[+-]?\d+|@|\*)\s*")
_SUBSCRIPTED_NAME = re.compile(r"[A-Za-z_]\w*\[(.*)\]", re.DOTALL)
_INTEGER = re.compile(r"[+-]?\d+")
_ARITHMETIC_TESTS = frozenset({"-eq", "-ne", "-lt", "-le", "-gt", "-ge"})
_ARITHMETIC_NODES = frozenset(
    {
        "number",
        "binary_expression",
        "unary_expression",
        "ternary_expression",
        "postfix_expression",
        "parenthesized_expression",
    }
)
_NAME_TAKING = frozenset({"read", "unset", "mapfile", "readarray", "getopts", "wait", "printf", "test", "["})
_NAMES_FROM_ARGUMENTS = frozenset({"read", "unset", "mapfile", "readarray", "getopts"})


def evaluation_problem(node: Node) -> str | None:
    """Why bash evaluates this node's value as code, or None (see the module docstring)."""
    kind = node.type
    if kind == "expansion":
        return expansion_problem(node)
    if kind == "subscript":
        return subscript_problem(node)
    if kind == "array":
        return array_problem(node)
    if kind == "test_command":
        return test_problem(node)
    if kind in ("arithmetic_expansion", "c_style_for_statement") or (
        kind == "compound_statement" and node.children and node.children[0].type == "(("
    ):
        return arithmetic_problem(node)
    return None


def expansion_problem(node: Node) -> str | None:
    """Why a ``${...}`` expansion evaluates code: indirection, prompt expansion, or a computed offset."""
    kids = node.children
    if len(kids) > 1 and kids[1].type == "!" and not _lists_names(kids[2:]):
        return INDIRECTION
    for index, kid in enumerate(kids):
        following = kids[index + 1] if index + 1 < len(kids) else None
        if kid.type == "@" and following is not None and text_of(following) == "P":
            return PROMPT
        if kid.type == ":" and following is not None and not _is_integer(following):
            return ARITHMETIC
    return None


def _lists_names(kids: list[Node]) -> bool:
    """``${!prefix*}``, ``${!prefix@}`` and ``${!array[@]}`` list names or keys; they evaluate nothing."""
    rest = [kid for kid in kids if kid.type != "}"]
    if len(rest) == 2 and rest[0].type == "variable_name" and rest[1].type in ("*", "@"):
        return True
    return (
        len(rest) == 1 and rest[0].type == "subscript" and re.search(r"\[\s*[@*]\s*\]$", text_of(rest[0])) is not None
    )


def subscript_problem(node: Node) -> str | None:
    """Why an array subscript is evaluated: anything but a literal number, ``@`` or ``*``."""
    return name_problem(text_of(node)) if "[" in text_of(node) else None


def array_problem(node: Node) -> str | None:
    """Why a compound array assignment evaluates code: an element ``[index]=value`` with a computed index."""
    for element in node.named_children:
        match = re.match(r"\[(.*?)\]=", text_of(element), re.DOTALL)
        if match and not _LITERAL_INDEX.fullmatch(match.group(1)):
            return SUBSCRIPT
    return None


def arithmetic_problem(node: Node) -> str | None:
    """Why ``$((...))``, ``((...))`` or a C-style ``for`` header evaluates code: it refers to anything but numbers."""
    for part in _arithmetic_parts(node):
        if part.is_named and part.type not in _ARITHMETIC_NODES:
            return ARITHMETIC
    return None


def _arithmetic_parts(node: Node) -> Iterator[Node]:
    for kid in node.children:
        if kid.type == "do_group":
            continue
        yield kid
        yield from _arithmetic_parts(kid)


def test_problem(node: Node) -> str | None:
    """Why a ``[[ ... ]]`` test evaluates code: an arithmetic comparison of non-numbers, or ``-v`` of a subscript."""
    for part in _descendants(node):
        if part.type == "binary_expression":
            operator = next((kid for kid in part.children if kid.type == "test_operator"), None)
            if operator is not None and text_of(operator) in _ARITHMETIC_TESTS:
                operands = [kid for kid in part.named_children if kid is not operator]
                if not all(_is_integer(kid) for kid in operands):
                    return ARITHMETIC
        elif part.type == "unary_expression" and "[" in text_of(part):
            if any(name_problem(text_of(kid)) for kid in part.named_children if kid.type != "test_operator"):
                return SUBSCRIPT
    return None


def _descendants(node: Node) -> Iterator[Node]:
    for kid in node.children:
        yield kid
        yield from _descendants(kid)


def _is_integer(node: Node) -> bool:
    return node.type in ("number", "word") and _INTEGER.fullmatch(text_of(node).strip()) is not None


def name_problem(text: str) -> str | None:
    """Why a variable name given as text is evaluated: it has a subscript that is not a literal."""
    match = _SUBSCRIPTED_NAME.match(text)
    if match and not _LITERAL_INDEX.fullmatch(match.group(1)):
        return SUBSCRIPT
    return None


def declaration_problem(keyword: str, options: list[str], names: list[str]) -> str | None:
    """Why ``declare``/``typeset``/``local``/``export``/``readonly``/``unset`` evaluates code."""
    if keyword in ("declare", "typeset", "local"):
        if any(option.startswith("-") and ("i" in option or "n" in option) for option in options):
            return DECLARE
    return next((problem for name in names if (problem := name_problem(name))), None)


def builtin_problem(words: Words) -> str | None:
    """Why a simple command is a builtin that evaluates its arguments (``let``, ``printf -v``, names with subscripts)."""
    name = command_name(words)
    if name == "let":
        return LET
    if name not in _NAME_TAKING:
        return None
    arguments = words[1:]
    if name == "printf" and any(_is_v_option(word) for word in arguments):
        return PRINTF_V
    if name in ("mapfile", "readarray") and any(word is not None and word.startswith("-C") for word in arguments):
        return MAPFILE_CALLBACK
    if name in _NAMES_FROM_ARGUMENTS and any(word is None for word in arguments):
        return NAME_UNKNOWN
    return next((problem for word in arguments if word is not None and (problem := name_problem(word))), None)


def _is_v_option(word: CommandWord) -> bool:
    return word is not None and word.startswith("-v")
