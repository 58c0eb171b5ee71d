"""Shell command lines taken apart with a real bash grammar (tree-sitter-bash), so each part can be judged.

:func:`analyze` returns every command that would run (wrappers such as ``env``, ``timeout``,
``xargs``, ``sh -c`` and ``eval`` looked through; command and process substitutions, subshells,
groups, loops and functions included), every pipeline, every file a redirection reads or writes,
and the *problems*: syntax the grammar rejects, constructs this module does not model, and values
that are only known when the command runs. Callers treat a problem as a reason to ask, never to allow.
"""

from __future__ import annotations

import os
import re
import threading
from dataclasses import dataclass, field
from functools import cache

import tree_sitter_bash
from tree_sitter import Language, Node, Parser

from engine.policy.patterns import PIPE, CommandWord
from engine.policy.shell_commands import Words, command_name, deletes_files, expand, risky_variable
from engine.policy.shell_words import join_values, may_expand, text_of, word_value

MAX_NESTING = 6
"""How deep ``sh -c`` / ``eval`` scripts inside scripts are followed before the command is asked about."""


@dataclass(frozen=True)
class ShellCommand:
    """One command that would run."""

    words: Words
    decisive: bool = True
    """False for a wrapper as written (``timeout 5 ...``): rules matching it count, but it need not be allowed."""
    deletes: bool = False


@dataclass(frozen=True)
class Redirection:
    """A file a redirection opens."""

    target: str | None
    """The path as written (``~`` not yet expanded), or None when it is only known at run time."""
    writes: bool
    bases: tuple[str | None, ...] = ("",)
    """Directories a relative target may be relative to (``""`` is the working directory, None unknown)."""


@dataclass(frozen=True)
class ShellAnalysis:
    """Everything in a command line that a permission rule may have to judge."""

    commands: tuple[ShellCommand, ...] = ()
    pipelines: tuple[Words, ...] = ()
    """Each pipeline's commands joined by ``PIPE`` words (wrappers looked through)."""
    redirections: tuple[Redirection, ...] = ()
    problems: tuple[str, ...] = ()


def analyze(command: str) -> ShellAnalysis:
    """Take ``command`` apart; never raises."""
    walker = _Walker()
    walker.script(command, depth=0)
    return walker.result()


_STRUCTURE = frozenset(
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
_VALUES = frozenset(
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
_WRITE_OPERATORS = frozenset({">", ">>", "&>", "&>>", ">|", ">&", "<>"})
_FD_DUPLICATION = frozenset({">&", "<&", ">&-", "<&-"})
_DIRECTORY_CHANGES = frozenset({"cd", "pushd", "popd"})
_LINE_CONTINUATIONS = re.compile(rb"(?:\\\r?\n)*")


@cache
def _language() -> Language:
    return Language(tree_sitter_bash.language())


_parsers = threading.local()


def _parse(text: str) -> Node:
    parser = getattr(_parsers, "parser", None)
    if parser is None:
        parser = _parsers.parser = Parser(_language())
    return parser.parse(text.encode("utf-8")).root_node


@dataclass
class _Walker:
    commands: list[ShellCommand] = field(default_factory=list)
    pipelines: list[Words] = field(default_factory=list)
    redirections: list[Redirection] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)
    bases: set[str | None] = field(default_factory=lambda: {""})
    depth: int = 0
    source: bytes = b""

    def result(self) -> ShellAnalysis:
        return ShellAnalysis(
            commands=tuple(self.commands),
            pipelines=tuple(self.pipelines),
            redirections=tuple(self.redirections),
            problems=tuple(dict.fromkeys(self.problems)),
        )

    def script(self, text: str, depth: int) -> None:
        if depth > MAX_NESTING:
            self.problems.append("shell scripts nested too deeply to follow")
            return
        root = _parse(text)
        if root.has_error:
            self.problems.append("the shell parser cannot make sense of it")
        saved = self.depth, self.source
        self.depth, self.source = depth, text.encode("utf-8")
        self.visit(root)
        self.depth, self.source = saved

    def visit(self, node: Node) -> None:
        kind = node.type
        if node.is_missing or kind == "ERROR":
            self.problems.append("the shell parser cannot make sense of it")
        elif not node.is_named:
            return
        elif kind == "command":
            self.command(node, [])
        elif kind == "pipeline":
            self.pipeline(node)
        elif kind == "redirected_statement":
            self.redirected(node)
        elif kind in ("file_redirect", "heredoc_redirect", "herestring_redirect"):
            self.redirect(node)
        elif kind == "heredoc_body":
            self.heredoc_body(node)
        elif kind == "variable_assignment":
            self.assignment(node)
        elif kind in ("declaration_command", "unset_command"):
            self.declaration(node)
        elif kind in _STRUCTURE or kind in _VALUES:
            self.children(node)
        else:
            self.problems.append(f"unsupported shell syntax ({kind})")

    def children(self, node: Node) -> None:
        for child in node.children:
            self.visit(child)

    # --- commands -----------------------------------------------------------------------

    def command(self, node: Node, extra_words: list[Node]) -> Words:
        """Judge-ready commands from one simple command; returns the words of the command it runs."""
        for child in node.named_children:
            if child.type == "variable_assignment":
                self.assignment(child)
            elif child.type in ("file_redirect", "heredoc_redirect", "herestring_redirect"):
                extra_words.extend(self.redirect(child))
        word_nodes = _word_nodes(node) + extra_words
        for word in word_nodes:
            self.visit(word)
        words = _merge_adjacent(sorted(word_nodes, key=lambda n: n.start_byte), self.source)
        if not words:
            return ()
        if words[0] is None:
            self.problems.append("the command's name is only known when it runs")
        expansion = expand(words)
        self.problems.extend(expansion.problems)
        for expanded, must_allow in expansion.commands:
            self.commands.append(ShellCommand(expanded, must_allow, must_allow and deletes_files(expanded)))
        for script in expansion.scripts:
            self.script(script, self.depth + 1)
        self.track_directory(words)
        decisive = [expanded for expanded, is_decisive in expansion.commands if is_decisive]
        return decisive[0] if decisive else expansion.commands[-1][0]

    def pipeline(self, node: Node) -> None:
        joined: list[CommandWord] = []
        for child in node.named_children:
            if joined:
                joined.append(PIPE)
            joined.extend(self.statement_words(child))
        self.pipelines.append(tuple(joined))

    def statement_words(self, node: Node) -> Words:
        """Visit a pipeline element; the words of its command when it is a simple one."""
        if node.type == "command":
            return self.command(node, [])
        if node.type == "redirected_statement":
            return self.redirected(node)
        self.visit(node)
        return (None,)

    def redirected(self, node: Node) -> Words:
        body = _body(node)
        redirects = node.children_by_field_name("redirect")
        if body is not None and body.type == "command":
            extra = [word for child in redirects for word in self.redirect(child)]
            return self.command(body, extra)
        if body is not None:
            self.visit(body)  # first: a `cd` in the body moves where the redirection's target is
        for child in redirects:
            for word in self.redirect(child):
                self.problems.append(f"unexpected word after a redirection: {text_of(word)}")
        return (None,)

    def track_directory(self, words: Words) -> None:
        """After ``cd``, a relative path may be relative to another directory: keep every possibility."""
        if command_name(words) not in _DIRECTORY_CHANGES:
            return
        arguments = [w for w in words[1:] if w is None or not w.startswith("-")]
        if command_name(words) == "popd" or len(arguments) > 1 or (arguments and arguments[0] in (None, "-")):
            self.bases.add(None)
            return
        target = arguments[0] if arguments else "~"
        assert target is not None
        self.bases |= {os.path.join(base, target) if base is not None else None for base in self.bases}

    # --- redirections, assignments, here-documents ---------------------------------------

    def redirect(self, node: Node) -> list[Node]:
        """Record the file a redirection opens; returns the words after its target (they belong to the command)."""
        if node.type == "heredoc_redirect":
            self.children(node)
            return []
        if node.type == "herestring_redirect":
            self.children(node)
            return []
        destinations = node.children_by_field_name("destination")
        operator = next((text_of(c) for c in node.children if not c.is_named), "")
        if not destinations:
            self.problems.append("a redirection without a target")
            return []
        target = destinations[0]
        self.visit(target)
        value = None if may_expand(target) else word_value(target)
        if operator in _FD_DUPLICATION and (value is None or value.isdigit() or value == "-"):
            if value is None:
                self.problems.append("a redirection whose target is only known when it runs")
            return destinations[1:]
        self.redirections.append(
            Redirection(target=value, writes=operator in _WRITE_OPERATORS, bases=tuple(sorted(self.bases, key=str)))
        )
        return destinations[1:]

    def heredoc_body(self, node: Node) -> None:
        siblings = node.parent.children if node.parent is not None else []
        start = next((sibling for sibling in siblings if sibling.type == "heredoc_start"), None)
        quoted = start is not None and any(q in text_of(start) for q in "'\"\\")
        if quoted:
            return
        if any(marker in _uncovered_text(node) for marker in ("`", "$(")):
            self.problems.append("a here-document with a command substitution the parser did not take apart")
        self.children(node)

    def assignment(self, node: Node) -> None:
        name = node.child_by_field_name("name")
        if name is not None and risky_variable(text_of(name)):
            self.problems.append(f"it sets {text_of(name)}, which can change what a program runs")
        self.children(node)

    def declaration(self, node: Node) -> None:
        for child in node.named_children:
            if child.type == "variable_name" and risky_variable(text_of(child)):
                self.problems.append(f"it changes {text_of(child)}, which can change what a program runs")
            self.visit(child)


def _uncovered_text(node: Node) -> str:
    """The node's text without the parts its children (other than plain content) already stand for."""
    data = bytearray(node.text or b"")
    for child in node.named_children:
        if child.type != "heredoc_content":
            start, end = child.start_byte - node.start_byte, child.end_byte - node.start_byte
            data[start:end] = b" " * (end - start)
    return data.decode("utf-8", errors="replace")


def _body(node: Node) -> Node | None:
    return node.child_by_field_name("body")


def _word_nodes(command: Node) -> list[Node]:
    name = command.child_by_field_name("name")
    words = [name] if name is not None else []
    return words + list(command.children_by_field_name("argument"))


def _merge_adjacent(nodes: list[Node], source: bytes) -> Words:
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
