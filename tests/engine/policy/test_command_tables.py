"""The command tables: options read as the programs read them, the files they name, and the tables' own consistency."""

from __future__ import annotations

import pytest

from engine.policy.argspec import Opt, Sub, ToolTable
from engine.policy.command_args import ParsedCommand, parse_command
from engine.policy.command_verdicts import TableJudge
from engine.policy.shell import analyze
from engine.policy.tables import TABLES, entry_tables, verdict_tables


def parsed(line: str) -> ParsedCommand:
    commands = [c for c in analyze(line).commands if c.decisive]
    assert len(commands) == 1, commands
    result = parse_command(commands[0].words)
    assert result is not None, line
    return result


def paths(line: str) -> list[tuple[str | None, str]]:
    return [(p.value, p.use) for p in parsed(line).paths]


@pytest.mark.parametrize(
    ("line", "asks_about"),
    [
        ("git grep -iO TODO", "git grep -O"),  # a cluster of short options
        ("git grep -Oless TODO", "git grep -O"),  # an attached optional value
        ("git diff --out=x", "git diff --out"),  # a unique prefix is the option to git
        ("git -ccore.pager=x log", "git -c"),
        ("npm test --scri=x", "npm test --scri"),
        ("go build -toolexec=x", "go build -toolexec"),
        ("go build --toolexec x", "go build -toolexec"),  # go reads -x and --x alike
    ],
)
def test_options_are_recognised_in_every_spelling_the_program_accepts(line: str, asks_about: str) -> None:
    assert any(ask.startswith(asks_about + ":") for ask in parsed(line).asks), parsed(line).asks


@pytest.mark.parametrize(
    "line",
    [
        "git commit -m --output=x",  # the message, not an option
        "git grep -e -O TODO",  # the pattern
        "git log -- --output=x",  # after --, a path
        "git diff --output-indicator-new=+",  # another option that merely starts the same way
        "cargo test -- --config x",  # arguments for the test binary
        "git log --grep=-O",
    ],
)
def test_values_and_operands_that_look_like_options_are_not_options(line: str) -> None:
    assert parsed(line).asks == ()


@pytest.mark.parametrize(
    ("line", "expected"),
    [
        ("cp a b dest", [("a", "read"), ("b", "read"), ("dest", "edit")]),
        ("cp -t dest a b", [("dest", "edit"), ("a", "read"), ("b", "read")]),
        ("mv -f a b", [("a", "edit"), ("b", "edit")]),
        ("ln -sf target link", [("link", "edit")]),
        ("tee -a log1 log2", [("log1", "edit"), ("log2", "edit")]),
        ("grep -rn pattern src", [("src", "read")]),
        ("grep -e a -e b src lib", [("src", "read"), ("lib", "read")]),
        ("sed -i s/a/b/ f.txt", [("f.txt", "edit")]),
        ("sed s/a/b/ f.txt", [("f.txt", "read")]),
        ("chmod +x run.sh", [("run.sh", "edit")]),
        ("sort -o out.txt in.txt", [("out.txt", "edit"), ("in.txt", "read")]),
        ("git -C sub mv a b", [("sub", "dir"), ("a", "edit"), ("b", "edit")]),
        ("git diff --no-index a b", [("a", "read"), ("b", "read")]),
        ("git checkout main -- a.py", [("a.py", "edit")]),
        ("pytest --junit-xml=r.xml tests/t.py::test_x[1]", [("r.xml", "edit"), ("tests/t.py", "read")]),
        ("python3 -m pytest -c ci.ini", [("ci.ini", "read")]),
        ("cargo build --target-dir t --manifest-path m/Cargo.toml", [("t", "edit"), ("m/Cargo.toml", "read")]),
        (
            "dotnet build app.csproj -o out /bl:b.binlog",
            [("out", "edit"), ("b.binlog", "edit"), ("app.csproj", "read")],
        ),
        ("make -C sub -f Other.mk", [("sub", "dir"), ("Other.mk", "read")]),
        ("rm -rf $DIR", [(None, "edit")]),
    ],
)
def test_the_files_a_command_names_are_found_with_their_use(line: str, expected: list[tuple[str, str]]) -> None:
    assert paths(line) == expected


@pytest.mark.parametrize(
    ("line", "cls"),
    [
        ("git status", "read"),
        ("git stash", "write"),
        ("git stash list", "read"),
        ("git stash store x", "ask"),
        ("git checkout -b new", "write"),
        ("git checkout main", "imports"),
        ("git restore --source HEAD~1 a.py", "imports"),
        ("git reset HEAD~1", "write"),
        ("git reset --hard", "write"),  # its --hard asks (see test_destructive_git.py)
        ("git rebase main", "ask"),
        ("git remote", "read"),
        ("git remote -v", "read"),
        ("git remote add x y", "ask"),
        ("git worktree list", "read"),
        ("git bisect good", "imports"),
        ("git bisect run make", "ask"),
        ("npm run build", "project_code"),
        ("cargo clean", "project_code"),
        ("python -m pytest", "project_code"),
        ("git frobnicate", None),
    ],
)
def test_subcommands_and_the_options_that_change_them_give_the_class(line: str, cls: str | None) -> None:
    assert parsed(line).cls == cls


def test_the_judge_allows_project_code_only_in_the_sandbox() -> None:
    words = ("cargo", "test")
    sandboxed, unsandboxed = TableJudge(sandboxed=True)(words), TableJudge(sandboxed=False)(words)
    assert sandboxed is not None and sandboxed[0] == "allow"
    assert unsandboxed is not None and unsandboxed[0] == "ask" and "sandbox is off" in unsandboxed[1]
    assert TableJudge()(("git", "frobnicate")) is None, "no verdict: the other rules or the default action decide"
    assert TableJudge()(("unknown-program",)) is None


ALL_TABLES: list[ToolTable] = [*TABLES.values(), *entry_tables()]


def _subs(table: ToolTable) -> list[tuple[str, Sub]]:
    found = [(table.name, table.main)] if table.main else []
    stack = [(f"{table.name} {name}", sub) for name, sub in table.subcommands.items()]
    while stack:
        name, sub = stack.pop()
        found.append((name, sub))
        stack += [(f"{name} {nested}", inner) for nested, inner in sub.subcommands.items()]
        if sub.unknown is not None:
            found.append((f"{name} ?", sub.unknown))
    return [(name, sub) for name, sub in found if sub is not None]


@pytest.mark.parametrize("table", ALL_TABLES, ids=[t.name for t in ALL_TABLES])
def test_every_table_gives_a_reason_for_each_verdict_and_spells_each_option_once(table: ToolTable) -> None:
    for name, sub in _subs(table):
        assert sub.cls is None or sub.reason, f"{name} has a class but no reason"
        options: list[Opt] = [*sub.options, *(table.options if table.options_anywhere or sub is table.main else ())]
        spellings = [spelling for option in options for spelling in option.names]
        assert len(spellings) == len(set(spellings)), f"{name}: an option spelled twice"
        assert all(s.startswith("-") for s in spellings), name


def test_every_table_that_decides_has_a_rule_in_the_defaults() -> None:
    from engine.policy.defaults import table_rules

    patterns = {rule.pattern for rule in table_rules()}
    assert {f"{' '.join(t.entry or (t.name,))} *" for t in verdict_tables()} == patterns
    assert {"git *", "npm *", "cargo *", "pytest *", "python -m pytest *", "dotnet *", "make *", "go *"} <= patterns


def test_the_default_rules_name_every_table_that_decides_and_only_those() -> None:
    from engine.policy.defaults import TABLE_COMMANDS

    tables = verdict_tables()
    assert TABLE_COMMANDS == tuple(" ".join(table.entry or (table.name,)) for table in tables)
    assert all(table.name == " ".join(table.entry or (table.name,)) for table in tables)  # the rules' reasons name them
