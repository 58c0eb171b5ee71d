"""Reading a command's words with its table: the subcommand, what it can do, the options that ask, the files it names.

Options are recognised the way the programs themselves read them: clusters of short options
(``-iO``), attached and separate values (``-ofile``, ``-o file``, ``--output=file``), unique
prefixes of long options where the program accepts them (``git diff --out=x`` is ``--output``),
``--`` ending the options. A word only known when the command runs (``$X``) could be any option, so
in a command whose table has options that ask it asks too.
"""

from __future__ import annotations

import re
from functools import lru_cache

from msgspec import Struct, field

from engine.policy.argspec import CLASS_REASONS, CommandClass, Operands, Opt, PathUse, Sub, ToolTable
from engine.policy.patterns import CommandWord
from engine.policy.tables import TABLES, entry_tables

Words = tuple[CommandWord, ...]
UNKNOWN_WORD = "an argument only known when it runs could be any option, one that runs a program included"
_MSBUILD_SWITCH = re.compile(r"^[-/]{1,2}([A-Za-z][\w-]*):(.*)$", re.DOTALL)


class PathArg(Struct, frozen=True):
    """A file named in a command's arguments."""

    value: str | None
    """As written (``~`` not expanded), or None when only known at run time."""
    use: PathUse
    source: str
    """The option that named it (``--output``), or ``operand``."""


class ParsedCommand(Struct, frozen=True):
    """A command read with its tool's table."""

    tool: str
    name: str
    """The subcommand as shown (``git stash list``)."""
    cls: CommandClass | None
    reason: str
    asks: tuple[str, ...] = ()
    paths: tuple[PathArg, ...] = ()
    directories: tuple[str | None, ...] = ()
    """``-C DIR`` options in order: the command runs in their join."""
    deletes: bool = False
    links: bool = False


class _Reading(Struct):
    table: ToolTable
    sub: Sub
    name: str
    asks: list[str] = field(default_factory=list)
    paths: list[PathArg] = field(default_factory=list)
    directories: list[str | None] = field(default_factory=list)
    operands: list[CommandWord] = field(default_factory=list)
    after_dashdash: list[CommandWord] = field(default_factory=list)
    cls: CommandClass | None = None
    mode: Operands | None = None
    pattern_given: bool = False
    deletes: bool = False
    links: bool = False
    unknown_words: bool = False


def parse_command(words: Words) -> ParsedCommand | None:
    """The command read with its table, or None when hive has no table for the program."""
    return _parse(tuple(words))


@lru_cache(maxsize=2048)
def _parse(words: Words) -> ParsedCommand | None:
    located = _locate(words)
    if located is None:
        return None
    table, rest = located
    start, sub, name, early = _subcommand(table, rest)
    reading = _Reading(table=table, sub=sub, name=name, cls=sub.cls)
    _take_early(reading, early)
    options = sub.options + (table.options if table.options_anywhere else ())
    _read_arguments(reading, options, rest[start:])
    return _result(reading)


def _locate(words: Words) -> tuple[ToolTable, Words] | None:
    """The table for ``words`` and the words after the program's name (``python -m pytest -q`` gives ``-q``)."""
    if not words or words[0] is None:
        return None
    program = words[0].rsplit("/", 1)[-1]
    for table in entry_tables():
        entry = table.entry
        if len(words) >= len(entry) and program == entry[0] and tuple(words[1 : len(entry)]) == entry[1:]:
            return table, words[len(entry) :]
    named = TABLES.get(program)
    return (named, words[1:]) if named is not None else None


def _subcommand(table: ToolTable, rest: Words) -> tuple[int, Sub, str, list[tuple[Opt, str, CommandWord, bool]]]:
    """Read the program's own options and find the subcommand; returns where its arguments start."""
    if table.main is not None and not table.subcommands:
        return 0, table.main, table.name, []
    early: list[tuple[Opt, str, CommandWord, bool]] = []
    i = 0
    while i < len(rest):
        word = rest[i]
        if word is None or not word.startswith("-") or word == "-":
            break
        found, width = _option(
            table, table.options, word, rest[i + 1] if i + 1 < len(rest) else None, i + 1 < len(rest)
        )
        if not found:
            early.append((_UNKNOWN, word, None, False))
        early.extend(found)
        i += width
    if i >= len(rest):
        bare = table.main or Sub(cls=None, reason=f"{table.name} without a subcommand")
        return i, bare, table.name, early
    word = rest[i]
    if word is None:
        return (
            i + 1,
            Sub(cls="ask", reason=f"the {table.name} subcommand is only known when it runs"),
            table.name,
            early,
        )
    sub = table.subcommands.get(word)
    if sub is None:
        unknown = Sub(cls=None, reason=f"hive's {table.name} table does not know {table.name} {word}")
        return i + 1, unknown, f"{table.name} {word}", early
    start, sub, name = _nested(sub, rest, i + 1, f"{table.name} {word}")
    return start, sub, name, early


def _nested(sub: Sub, rest: Words, start: int, name: str) -> tuple[int, Sub, str]:
    if not sub.subcommands:
        return start, sub, name
    word = rest[start] if start < len(rest) else None
    if isinstance(word, str) and word in sub.subcommands:
        return _nested(sub.subcommands[word], rest, start + 1, f"{name} {word}")
    if isinstance(word, str) and not word.startswith("-") and sub.unknown is not None:
        return start + 1, sub.unknown, f"{name} {word}"
    if word is None and start < len(rest):
        return start, Sub(cls="ask", reason=f"the {name} subcommand is only known when it runs"), name
    if sub.default:
        return _nested(sub.subcommands[sub.default], rest, start, f"{name} {sub.default}")
    return start, sub, name


_UNKNOWN = Opt(names=("?",))


def _take_early(reading: _Reading, early: list[tuple[Opt, str, CommandWord, bool]]) -> None:
    for option, shown, value, has_value in early:
        if option is _UNKNOWN:
            if reading.table.unknown_option:
                reading.asks.append(f"{reading.table.name} {shown}: {reading.table.unknown_option}")
            continue
        _apply(reading, option, f"{reading.table.name} {shown}", value, has_value)


def _read_arguments(reading: _Reading, options: tuple[Opt, ...], words: Words) -> None:
    i = 0
    dashdash = False
    while i < len(words):
        word = words[i]
        if dashdash:
            reading.after_dashdash.append(word)
            i += 1
            continue
        if word == "--":
            dashdash = True
            i += 1
            continue
        if word is None:
            reading.unknown_words = True
            reading.operands.append(None)
            i += 1
            continue
        switch = reading.table.msbuild_switches and _MSBUILD_SWITCH.match(word)
        if (not word.startswith("-") or word == "-") and not switch:
            reading.operands.append(word)
            i += 1
            continue
        following = words[i + 1] if i + 1 < len(words) else None
        found, width = _option(reading.table, options, word, following, i + 1 < len(words))
        for option, shown, value, has_value in found:
            _apply(reading, option, f"{reading.name} {shown}", value, has_value)
        i += width


def _option(
    table: ToolTable, options: tuple[Opt, ...], word: str, following: CommandWord, has_following: bool
) -> tuple[list[tuple[Opt, str, CommandWord, bool]], int]:
    """The options one word stands for (each with its value), and how many words they take."""
    switch = _MSBUILD_SWITCH.match(word) if table.msbuild_switches else None
    if switch:
        found = _long(table, options, "-" + switch.group(1))
        return ([(found, word, switch.group(2), True)] if found else []), 1
    if word.startswith("--") or table.single_dash_long:
        name, eq, attached = word.partition("=")
        if table.single_dash_long and name.startswith("--"):
            name = name[1:]
        found = _long(table, options, name)
        if found is None:
            return [], 1
        if found.value == "required" and not eq:
            return [(found, name, following, has_following)], 2 if has_following else 1
        return [(found, name, attached if eq else None, bool(eq))], 1
    return _short_cluster(options, word, following, has_following)


def _long(table: ToolTable, options: tuple[Opt, ...], name: str) -> Opt | None:
    exact = next((o for o in options if name in o.names), None)
    if exact is not None or not table.abbreviations or len(name) < 3:
        return exact
    # A unique prefix is that option to the program; a prefix of several is refused by it, so taking the
    # most consequential of them is safe either way.
    candidates = [o for o in options if any(n.startswith(name) and n.startswith("--") for n in o.names)]
    return max(candidates, key=_weight, default=None)


def _weight(option: Opt) -> int:
    return 3 * bool(option.ask) + 2 * bool(option.path or option.becomes) + bool(option.operands)


def _short_cluster(
    options: tuple[Opt, ...], word: str, following: CommandWord, has_following: bool
) -> tuple[list[tuple[Opt, str, CommandWord, bool]], int]:
    exact = next((o for o in options if word in o.names), None)  # also single-dash long options (``-bl``)
    if exact is not None:
        if exact.value == "required":
            return [(exact, word, following, has_following)], 2 if has_following else 1
        return [(exact, word, None, False)], 1
    found: list[tuple[Opt, str, CommandWord, bool]] = []
    for index, char in enumerate(word[1:], start=1):
        option = next((o for o in options if f"-{char}" in o.names), None)
        if option is None:
            continue
        if option.value == "none":
            found.append((option, f"-{char}", None, False))
            continue
        attached = word[index + 1 :]
        if attached:
            found.append((option, f"-{char}", attached, True))
            return found, 1
        if option.value == "required":
            found.append((option, f"-{char}", following, has_following))
            return found, 2 if has_following else 1
        found.append((option, f"-{char}", None, False))
        return found, 1
    return found, 1


def _apply(reading: _Reading, option: Opt, shown: str, value: CommandWord, has_value: bool) -> None:
    if option.ask:
        reading.asks.append(f"{shown}: {option.ask}")
    if option.becomes is not None:
        reading.cls = _stricter(reading.cls, option.becomes)
    if option.operands is not None:
        reading.mode = option.operands
    if option.gives_pattern:
        reading.pattern_given = True
    reading.deletes |= option.deletes
    reading.links |= option.links
    if option.path is None or not has_value:
        return
    if option.path == "dir":
        reading.directories.append(value)
    reading.paths.append(PathArg(value, option.path, shown.rsplit(" ", 1)[-1]))


_ORDER: dict[CommandClass, int] = {"read": 0, "write": 1, "imports": 2, "project_code": 3, "ask": 4}


def _stricter(current: CommandClass | None, other: CommandClass) -> CommandClass:
    if current is None:
        return other
    return current if _ORDER[current] >= _ORDER[other] else other


def _result(reading: _Reading) -> ParsedCommand:
    sub = reading.sub
    cls = reading.cls
    if sub.with_operands is not None and reading.operands and cls is not None:
        cls = _stricter(cls, sub.with_operands)
    asks = list(reading.asks) + _operand_asks(reading)
    if reading.unknown_words and _has_asking_options(reading.table, sub):
        asks.append(f"{reading.name}: {UNKNOWN_WORD}")
    paths = list(reading.paths)
    mode = reading.mode or sub.operands
    paths += _operand_paths(reading.operands, mode, reading.pattern_given, sub.node_ids)
    tail_mode = reading.mode or sub.after_dashdash or sub.operands
    paths += _operand_paths(reading.after_dashdash, tail_mode, True, sub.node_ids)
    return ParsedCommand(
        tool=reading.table.name,
        name=reading.name,
        cls=cls,
        reason=sub.reason if cls == sub.cls or cls not in CLASS_REASONS else CLASS_REASONS[cls],
        asks=tuple(dict.fromkeys(asks)),
        paths=tuple(paths),
        directories=tuple(reading.directories),
        deletes=sub.deletes or reading.deletes,
        links=sub.links or reading.links,
    )


def _operand_asks(reading: _Reading) -> list[str]:
    """Why operands the subcommand asks about (``git checkout .``, ``git push +main``) make it ask."""
    return [
        f"{reading.name} {word}: {why}"
        for word in (*reading.operands, *reading.after_dashdash)
        for pattern, why in reading.sub.operand_asks
        if word is not None and re.fullmatch(pattern, word, re.DOTALL)
    ]


def _has_asking_options(table: ToolTable, sub: Sub) -> bool:
    if sub.cls is not None:
        return True
    return any(o.ask for o in (*table.options, *sub.options))


def _operand_paths(operands: list[CommandWord], mode: Operands, pattern_given: bool, node_ids: bool) -> list[PathArg]:
    values = [_node_path(v) if node_ids else v for v in operands]
    if mode == "none" or not values:
        return []
    if mode in ("after_first_read", "after_first_edit"):
        use: PathUse = "read" if mode == "after_first_read" else "edit"
        return [PathArg(v, use, "operand") for v in (values if pattern_given else values[1:])]
    if mode == "copy":
        return [PathArg(v, "read", "operand") for v in values[:-1]] + [PathArg(values[-1], "edit", "operand")]
    if mode == "last_edit":
        return [PathArg(values[-1], "edit", "operand")]
    if mode == "first_edit":
        return [PathArg(values[0], "edit", "operand")]
    if mode == "in_out":
        return [PathArg(values[0], "read", "operand")] + [PathArg(v, "edit", "operand") for v in values[1:2]]
    return [PathArg(v, "read" if mode == "read" else "edit", "operand") for v in values]


def _node_path(value: CommandWord) -> CommandWord:
    return value.split("::", 1)[0] if value is not None else None
