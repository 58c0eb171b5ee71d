"""Every ``hive ...`` command line the README and docs/ show names a real command and real flags.

The lines come from the pages' shell blocks and their inline code; each command path is asked for its
``--help`` from the real program, and every flag a line shows must be one that help lists.
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Iterator
from functools import cache
from pathlib import Path

import pytest

from tests.support.cli import run_hive

REPOSITORY = Path(__file__).resolve().parents[2]
PAGES = [REPOSITORY / "README.md", *sorted((REPOSITORY / "docs").glob("*.md"))]
FLAG = re.compile(r"^-{1,2}[A-Za-z][\w-]*")
SHELL_STOPS = {"&&", "||", ";", "<", ">"}
MESSAGES = ("hive did not read",)
"""Inline code that quotes what hive prints, not a command line."""


def shown_lines(text: str) -> Iterator[str]:
    """The ``hive`` command lines of a page: lines of its ``sh`` blocks, and inline code spans."""
    for block in re.findall(r"```sh\n(.*?)```", text, re.DOTALL):
        yield from (line.strip() for line in block.splitlines() if line.strip().startswith("hive"))
    outside = re.sub(r"```.*?```", "", text, flags=re.DOTALL)
    spans = re.findall(r"`(hive(?: [^`]*)?)`", outside)
    yield from (span for span in spans if not span.startswith(MESSAGES))


def words(line: str) -> list[str]:
    """A line as the shell splits it (comments dropped); a synopsis that is no shell line, by spaces."""
    line = line.replace("\\|", "|")
    try:
        return shlex.split(line, comments=True)
    except ValueError:
        return line.split()


@cache
def help_of(path: tuple[str, ...]) -> tuple[frozenset[str], frozenset[str]]:
    """The flags and the subcommands ``hive PATH --help`` lists."""
    shown = run_hive(*path, "--help")
    assert shown.returncode == 0, f"hive {' '.join(path)} --help: {shown.stderr}"
    options, _, commands = shown.stdout.partition("\nCommands:\n")
    flags = frozenset(re.findall(r"(?<![\w-])(-{1,2}[A-Za-z][\w-]*)", options))
    names = frozenset(line.split()[0] for line in commands.splitlines() if line.startswith("  ") and line.split())
    return flags, names


def problems(line: str) -> list[str]:
    """What is wrong with one shown line: a command hive does not have, or a flag its command does not have."""
    path: list[str] = []
    found = []
    for word in words(line)[1:]:
        if word == "--" or word in SHELL_STOPS:
            break
        flags, commands = help_of(tuple(path))
        bare = word.strip("[](),.")
        if commands and not bare.startswith("-") and all(name in commands for name in bare.split("|")):
            path.append(bare.split("|")[0])
            continue
        flag = FLAG.match(bare)
        if flag and flag.group(0) not in flags:
            found.append(f"`{line}`: hive {' '.join(path)} has no {flag.group(0)}")
        elif path and commands and not flag and not bare.isupper() and bare != "|":
            found.append(f"`{line}`: hive {' '.join(path)} has no command {bare}")
    return found


def all_lines() -> list[tuple[str, str]]:
    return sorted({(page.name, line) for page in PAGES for line in shown_lines(page.read_text(encoding="utf-8"))})


def test_the_pages_show_many_command_lines() -> None:
    lines = all_lines()
    assert len(lines) > 50
    assert ("mcp.md", "hive mcp add everything -- npx -y @modelcontextprotocol/server-everything stdio") in lines


@pytest.mark.parametrize("page", [page.name for page in PAGES])
def test_every_command_line_shown_parses(page: str) -> None:
    lines = [line for name, line in all_lines() if name == page]
    wrong = [problem for line in lines for problem in problems(line)]
    assert wrong == []


def test_a_flag_no_command_has_is_caught() -> None:
    assert problems("hive run --no-such-flag TASK") == [
        "`hive run --no-such-flag TASK`: hive run has no --no-such-flag"
    ]
    assert problems("hive mcp add x --transport stdio -- cmd --not-hives") == []
    assert problems("hive mcp approve|revoke NAME [--all]") == []
    assert problems("hive mcp forget NAME") == ["`hive mcp forget NAME`: hive mcp has no command forget"]
