"""The rules that apply when neither the project nor the user has a permissions file.

Commands are allowed by what they can do, not by their first word: the command tables
(``tables_*.py``, judged by :class:`~engine.policy.command_verdicts.TableJudge`) decide for git and
the test and build tools, and what runs the project's own code is allowed only when commands run
in the sandbox (``sandboxed``). Secret files are matched whatever the case of their names; their
patterns are :mod:`engine.secret_files`, the one list the sandbox hides too.
"""

from __future__ import annotations

from engine.policy.command_verdicts import TableJudge
from engine.policy.rules import Action, Category, Layer, Rule
from engine.secret_files import SECRET_ASKS, SECRET_DENIES

DEFAULT_SOURCE = "built-in defaults"

READ_ONLY_BUILTINS = (
    "read_file",
    "list_directory",
    "glob_files",
    "grep_files",
    "repo_map",
    "todo_write",
    "load_skill",
    "recall_result",
    "recall",
)
"""The built-in tools that change nothing; plan mode offers them (``remember`` writes, so it is not one)."""
_MEMORY_RULES: tuple[tuple[str, Action, str], ...] = (
    ("remember", "allow", "it writes only hive's own memory store (a user-scope note is asked)"),
    ("remember (user scope)", "ask", "a user-scope note is recalled in every project, not only this one"),
)

_SECRET = "this file usually holds credentials"
_CREDENTIAL_STORE = "a credential store or private key: never shown to the model"
SECRET_TOOL_NAMES = ("*secret*", "*password*", "*passwd*", "*credential*", "*token*", "*api_key*", "*apikey*")
"""MCP tools whose names say they hand out secrets ask even when their server marks them read-only."""

_READS_FILES = "it reads files, and every file it names is judged by the read rules"
_WRITES_FILES = "every file it writes is judged by the edit rules (and a deletion is asked)"
_FILE_COMMANDS = (
    *(f"{name} *" for name in "cat tac nl head tail wc stat file diff cmp md5sum sha1sum sha256sum".split()),
    *(f"{name} *" for name in "grep egrep fgrep rg sort uniq du".split()),
    "ls",
    "ls *",
)
_BASH: tuple[tuple[str, Action, str], ...] = (
    *((pattern, "allow", _READS_FILES) for pattern in _FILE_COMMANDS),
    *((f"{name} *", "allow", _WRITES_FILES) for name in ("mkdir", "touch", "cp", "mv")),
    ("echo", "allow", "prints its arguments (a redirection is judged as an edit)"),
    ("echo *", "allow", "prints its arguments (a redirection is judged as an edit)"),
    ("printf *", "allow", "prints its arguments (a redirection is judged as an edit)"),
    *(
        (f"{name} *", "allow", "prints a name, touches nothing")
        for name in ("basename", "dirname", "realpath", "which")
    ),
    ("whoami", "allow", "harmless"),
    ("uname", "allow", "harmless"),
    ("uname *", "allow", "harmless"),
    ("python --version", "allow", "harmless"),
    ("python3 --version", "allow", "harmless"),
    ("pip list*", "allow", "lists installed packages"),
    ("pip show *", "allow", "shows an installed package"),
    ("pip freeze*", "allow", "lists installed packages"),
    ("cd *", "allow", "changes directory only (the commands after it are judged on their own)"),
    ("pwd", "allow", "harmless"),
    ("true", "allow", "harmless"),
    ("false", "allow", "harmless"),
    ("rm -rf *", "deny", "recursive forced deletion"),
    ("sudo *", "deny", "no commands as another user"),
    ("curl * | *sh*", "deny", "never pipe a download into a shell"),
)
_DEFAULTS: dict[Category, tuple[tuple[str, Action, str], ...]] = {
    "read": (("**/*", "allow", "reading project files is allowed"),),
    "edit": (
        ("src/**", "allow", "source files may be edited"),
        ("tests/**", "allow", "tests may be edited"),
        ("*.json", "ask", "configuration files need a look first"),
        ("*.yaml", "ask", "configuration files need a look first"),
        ("*.yml", "ask", "configuration files need a look first"),
    ),
    "bash": _BASH,
    "mcp_tools": tuple((name, "ask", "its name says it handles secrets") for name in SECRET_TOOL_NAMES),
    "tools": (
        *((name, "allow", "read-only built-in tool") for name in READ_ONLY_BUILTINS),
        *_MEMORY_RULES,
        ("agent_*", "allow", "a delegated agent: each of its own tool calls is judged"),
        ("advisor", "allow", "the advisor only reads the conversation; it has no tools"),
    ),
}


def default_rules(*, sandboxed: bool = True) -> tuple[Rule, ...]:
    """The built-in rules, every one with priority 0: the table rules first, then the patterns."""
    return (*table_rules(sandboxed=sandboxed), *_pattern_rules(), *_secret_rules())


TABLE_COMMANDS = (
    *("git", "npm", "npx", "yarn", "pnpm", "cargo", "dotnet"),
    *("pytest", "py.test", "python -m pytest", "python3 -m pytest", "make", "go"),
)
"""The first words of the commands whose table decides (``tables.verdict_tables()``; each table is named so).

Written out so that building the rules does not load the tables: they load when a command is first
judged. A test holds it equal to the tables.
"""


def table_rules(*, sandboxed: bool = True) -> tuple[Rule, ...]:
    """One ``bash`` rule per command table; the table decides the action (see the module docstring)."""
    judge = TableJudge(sandboxed)
    return tuple(
        Rule(
            category="bash",
            pattern=f"{words} *",
            action="ask",
            reason=f"hive's {words} table decides by what the command can do",
            judge=judge,
        )
        for words in TABLE_COMMANDS
    )


def _secret_rules() -> tuple[Rule, ...]:
    asks: list[tuple[str, Action, str]] = [(pattern, "ask", _SECRET) for pattern in SECRET_ASKS]
    denies: list[tuple[str, Action, str]] = [(pattern, "deny", _CREDENTIAL_STORE) for pattern in SECRET_DENIES]
    return tuple(
        Rule(category="read", pattern=pattern, action=action, reason=reason, source=DEFAULT_SOURCE, ignore_case=True)
        for pattern, action, reason in (*asks, *denies)
    )


def _pattern_rules() -> tuple[Rule, ...]:
    return tuple(
        Rule(
            category=category,
            pattern=pattern,
            action=action,
            reason=reason,
            source=DEFAULT_SOURCE,
            ignore_case=category == "mcp_tools",
        )
        for category, entries in _DEFAULTS.items()
        for pattern, action, reason in entries
    )


def default_layer(*, sandboxed: bool = True) -> Layer:
    """The built-in defaults as a layer: default action ask, ask before deleting, read-only MCP tools allowed.

    ``sandboxed`` says whether shell commands run in the OS sandbox; without it, commands that run
    the project's own code or write files from other commits are asked instead of allowed.
    """
    return Layer(
        source=DEFAULT_SOURCE,
        rules=default_rules(sandboxed=sandboxed),
        default_action="ask",
        ask_before_delete=True,
    )
