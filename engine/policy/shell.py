"""Shell command lines taken apart with a real bash grammar (tree-sitter-bash), so each part can be judged.

:func:`analyze` returns every command that would run (wrappers such as ``env``, ``timeout``,
``xargs``, ``sh -c`` and ``eval`` looked through; command and process substitutions, subshells,
groups, loops and functions included), every pipeline, every file a redirection reads or writes,
and the *problems*: syntax the grammar rejects, constructs this module does not model, and values
that are only known when the command runs. Callers treat a problem as a reason to ask, never to allow.
"""

from __future__ import annotations

import os

from msgspec import Struct, field
from tree_sitter import Node

from engine.policy.patterns import PIPE, CommandWord
from engine.policy.risky_env import risky_variable
from engine.policy.shell_commands import Words, command_name, deletes_files, expand
from engine.policy.shell_evaluation import NAME_UNKNOWN, builtin_problem, declaration_problem, evaluation_problem
from engine.policy.shell_nodes import (
    EVALUATED,
    RAW_TEXT,
    STRUCTURE,
    SUBSTITUTION_MARKERS,
    VALUES,
    command_word_nodes,
    inside_double_quotes,
    merge_adjacent,
    parse,
    statement_body,
    uncovered_text,
)
from engine.policy.shell_words import may_expand, text_of, word_value

MAX_NESTING = 6
"""How deep ``sh -c`` / ``eval`` scripts inside scripts are followed before the command is asked about."""


class ShellCommand(Struct, frozen=True):
    """One command that would run."""

    words: Words
    decisive: bool = True
    """False for a wrapper as written (``timeout 5 ...``): rules matching it count, but it need not be allowed."""
    deletes: bool = False
    bases: tuple[str | None, ...] = ("",)
    """Directories the command may run in (``""`` is the working directory, None unknown), as for redirections."""


class Redirection(Struct, frozen=True):
    """A file a redirection opens."""

    target: str | None
    """The path as written (``~`` not yet expanded), or None when it is only known at run time."""
    writes: bool
    bases: tuple[str | None, ...] = ("",)
    """Directories a relative target may be relative to (``""`` is the working directory, None unknown)."""


class ShellAnalysis(Struct, frozen=True):
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


_WRITE_OPERATORS = frozenset({">", ">>", "&>", "&>>", ">|", ">&", "<>"})
_FD_DUPLICATION = frozenset({">&", "<&", ">&-", "<&-"})
_DIRECTORY_CHANGES = frozenset({"cd", "pushd", "popd"})


class _Walker(Struct):
    commands: list[ShellCommand] = field(default_factory=list)
    pipelines: list[Words] = field(default_factory=list)
    redirections: list[Redirection] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)
    bases: set[str | None] = field(default_factory=lambda: {""})
    depth: int = 0
    fragments: int = 0
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
        root = parse(text)
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
            self.heredocbody(node)
        elif kind == "variable_assignment":
            self.assignment(node)
        elif kind in ("declaration_command", "unset_command"):
            self.declaration(node)
        elif kind in EVALUATED:
            self.evaluated(node)
        elif kind in RAW_TEXT and SUBSTITUTION_MARKERS.search(text_of(node)):
            self.fragment(text_of(node))
        elif kind in STRUCTURE or kind in VALUES:
            self.children(node)
        else:
            self.problems.append(f"unsupported shell syntax ({kind})")

    def children(self, node: Node) -> None:
        for child in node.children:
            self.visit(child)

    def evaluated(self, node: Node) -> None:
        problem = evaluation_problem(node)
        if problem:
            self.problems.append(problem)
        if node.type != "expansion" or not inside_double_quotes(node):
            self.children(node)
            return
        for child in node.children:  # in "${x:-'$(cmd)'}" the single quotes are plain characters: cmd runs
            if child.type == "raw_string":
                self.fragment(text_of(child)[1:-1])
            else:
                self.visit(child)

    def fragment(self, text: str) -> None:
        """Find what bash runs in text the grammar left unparsed, by parsing it as the words of a command."""
        if not SUBSTITUTION_MARKERS.search(text):
            return
        if self.fragments >= MAX_NESTING:
            self.problems.append("expansions nested too deeply to follow")
            return
        line = ": " + text
        root = parse(line)
        statements = root.named_children
        if root.has_error or len(statements) != 1 or statements[0].type != "command":
            self.problems.append("the shell parser cannot make sense of an expansion's text")
            return
        saved = self.source
        self.fragments += 1
        self.source = line.encode("utf-8")
        for argument in statements[0].children_by_field_name("argument"):
            self.visit(argument)
        self.fragments -= 1
        self.source = saved

    # --- commands -----------------------------------------------------------------------

    def command(self, node: Node, extra_words: list[Node]) -> Words:
        """Judge-ready commands from one simple command; returns the words of the command it runs."""
        for child in node.named_children:
            if child.type == "variable_assignment":
                self.assignment(child)
            elif child.type in ("file_redirect", "heredoc_redirect", "herestring_redirect"):
                extra_words.extend(self.redirect(child))
        word_nodes = command_word_nodes(node) + extra_words
        for word in word_nodes:
            self.visit(word)
        words = merge_adjacent(sorted(word_nodes, key=lambda n: n.start_byte), self.source)
        if not words:
            return ()
        if words[0] is None:
            self.problems.append("the command's name is only known when it runs")
        expansion = expand(words)
        self.problems.extend(expansion.problems)
        bases = tuple(sorted(self.bases, key=str))
        for expanded, must_allow in expansion.commands:
            self.commands.append(ShellCommand(expanded, must_allow, must_allow and deletes_files(expanded), bases))
            problem = builtin_problem(expanded)
            if problem:
                self.problems.append(problem)
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
        body = statement_body(node)
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

    def heredocbody(self, node: Node) -> None:
        siblings = node.parent.children if node.parent is not None else []
        start = next((sibling for sibling in siblings if sibling.type == "heredoc_start"), None)
        quoted = start is not None and any(q in text_of(start) for q in "'\"\\")
        if quoted:
            return
        if any(marker in uncovered_text(node) for marker in ("`", "$(")):
            self.problems.append("a here-document with a command substitution the parser did not take apart")
        self.children(node)

    def assignment(self, node: Node) -> None:
        name = node.child_by_field_name("name")
        if name is not None and risky_variable(text_of(name)):
            self.problems.append(f"it sets {text_of(name)}, which can change what a program runs")
        self.children(node)

    def declaration(self, node: Node) -> None:
        keyword = text_of(node.children[0]) if node.children else ""
        options: list[str] = []
        names: list[str] = []
        for child in node.named_children:
            if child.type == "variable_name" and risky_variable(text_of(child)):
                self.problems.append(f"it changes {text_of(child)}, which can change what a program runs")
            if child.type not in ("variable_assignment", "variable_name"):
                value = word_value(child)
                if value is None:
                    self.problems.append(NAME_UNKNOWN)
                else:
                    (options if value.startswith(("-", "+")) else names).append(value)
            self.visit(child)
        problem = declaration_problem(keyword, options, names)
        if problem:
            self.problems.append(problem)
