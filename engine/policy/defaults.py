"""The rules that apply when neither the project nor the user has a permissions file."""

from __future__ import annotations

from engine.policy.rules import Action, Category, Layer, Rule

DEFAULT_SOURCE = "built-in defaults"

READ_ONLY_BUILTINS = ("read_file", "list_directory", "glob_files", "grep_files", "todo_write", "load_skill")
"""The built-in tools that change nothing; plan mode offers them."""

_GIT_RUNS = "this git option or command can make git run any command or write any file"
_GIT_RUNNING_OTHERS = (
    "git -c *",
    "git * -c *",
    "git --config-env*",
    "git --exec-path*",
    "git * --upload-pack*",
    "git * --receive-pack*",
    "git * --output*",
    "git clone * -u *",
    "git config *",
    "git rebase * -x *",
    "git rebase * --exec*",
    "git bisect run *",
    "git submodule foreach *",
    "git filter-branch *",
    "git difftool *",
    "git mergetool *",
)
_BASETEMP = "pytest empties the --basetemp folder first"

_DEFAULTS: dict[Category, tuple[tuple[str, Action, str], ...]] = {
    "read": (
        ("**/*", "allow", "reading project files is allowed"),
        (".env*", "ask", "environment files often hold secrets"),
        ("**/secrets/**", "deny", "secrets stay secret"),
    ),
    "edit": (
        ("src/**", "allow", "source files may be edited"),
        ("tests/**", "allow", "tests may be edited"),
        ("*.json", "ask", "configuration files need a look first"),
        ("*.yaml", "ask", "configuration files need a look first"),
        ("*.yml", "ask", "configuration files need a look first"),
    ),
    "bash": (
        ("git *", "allow", "version control"),
        *((pattern, "ask", _GIT_RUNS) for pattern in _GIT_RUNNING_OTHERS),
        ("dotnet *", "allow", ".NET build tool"),
        ("npm *", "allow", "Node package manager"),
        *((pattern, "ask", "runs any command, not just npm") for pattern in ("npm exec *", "npm x *", "npm explore *")),
        ("cargo *", "allow", "Rust build tool"),
        ("pytest *", "allow", "Python tests"),
        ("python -m pytest *", "allow", "Python tests"),
        ("python3 -m pytest *", "allow", "Python tests"),
        *(
            (f"{pytest} * --basetemp*", "ask", _BASETEMP)
            for pytest in ("pytest", "python -m pytest", "python3 -m pytest")
        ),
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
    ),
    "mcp_tools": (
        ("*_help", "allow", "read-only MCP tool"),
        ("*_get", "allow", "read-only MCP tool"),
        ("*_list", "allow", "read-only MCP tool"),
    ),
    "tools": tuple((name, "allow", "read-only built-in tool") for name in READ_ONLY_BUILTINS),
}


def default_rules() -> tuple[Rule, ...]:
    """The built-in rules, every one with priority 0."""
    return tuple(
        Rule(category=category, pattern=pattern, action=action, reason=reason, source=DEFAULT_SOURCE)
        for category, entries in _DEFAULTS.items()
        for pattern, action, reason in entries
    )


def default_layer() -> Layer:
    """The built-in defaults as a layer: the rules above, default action ask, ask before deleting."""
    return Layer(source=DEFAULT_SOURCE, rules=default_rules(), default_action="ask", ask_before_delete=True)
