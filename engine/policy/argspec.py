"""The shape of hive's command tables: how a tool's options and operands are read, and what each may do.

A :class:`ToolTable` describes one program (``git``, ``cargo``, ``cp``): its options, its subcommands
and, for each, a :data:`CommandClass` (what running it can do) with the reason, the options that
make it ask, and the options and operands that name files (judged as reads or edits). The tables
themselves are data, in ``tables_*.py``; :mod:`engine.policy.command_args` reads command words with them.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Literal

from msgspec import Struct, field

CommandClass = Literal["read", "write", "imports", "project_code", "ask"]
"""What a command can do.

``read``: it only reads the project. ``write``: it changes files inside the project only.
``imports``: it writes files taken from other commits, which may hold ``.ironhive/`` or links that
lead outside. ``project_code``: it runs the project's own code (tests, build scripts, configuration
that names programs). ``ask``: it runs other programs, changes configuration or reaches outside.
"""

IMPORTS_REASON = (
    "it writes files taken from other commits, which can hold .ironhive/ or links that lead outside the "
    "project: allowed only when the sandbox keeps hive's configuration and git's hooks read-only"
)
PROJECT_CODE_REASON = (
    "it runs the project's own code (tests, scripts, build files), which the agent may just have written: "
    "allowed only when the sandbox contains it"
)
CLASS_REASONS: dict[CommandClass, str] = {"imports": IMPORTS_REASON, "project_code": PROJECT_CODE_REASON}
"""Why a command of these classes is allowed only in the sandbox (when an option moves it into one)."""

PathUse = Literal["read", "edit", "dir"]
"""How a named file is used: read, written (or deleted), or the directory the command runs in."""

Operands = Literal[
    "none", "read", "edit", "copy", "last_edit", "first_edit", "after_first_read", "after_first_edit", "in_out"
]
"""Which operands are files: none; all read; all edited; ``copy`` (the last is written, the others
read); ``last_edit`` (only the last is written, as ``ln``); ``first_edit`` (only the first, as
``git worktree add``); ``after_first_*`` (the first is a pattern or a mode, the rest are files);
``in_out`` (the first is read, the second written, as ``uniq``)."""


class Opt(Struct, frozen=True):
    """One option (with its spellings) and what it does."""

    names: tuple[str, ...]
    value: Literal["none", "required", "optional"] = "none"
    """``optional`` values are only taken when attached (``--x=V``, ``-xV``)."""
    path: PathUse | None = None
    """The option's value is a file used this way."""
    ask: str = ""
    """When set, the option makes the command ask, for this reason."""
    becomes: CommandClass | None = None
    """The option changes what the command can do (``git restore --source`` imports)."""
    operands: Operands | None = None
    """The option changes which operands are files (``sed -i`` edits them, ``cp -t DIR`` reads them all)."""
    gives_pattern: bool = False
    """``grep -e``: the pattern is given, so the first operand is a file too."""
    deletes: bool = False
    links: bool = False
    """The option makes the command create links (``cp -s``)."""


def opt(
    names: str,
    value: Literal["none", "required", "optional"] = "none",
    *,
    path: PathUse | None = None,
    ask: str = "",
    becomes: CommandClass | None = None,
    operands: Operands | None = None,
    gives_pattern: bool = False,
    deletes: bool = False,
    links: bool = False,
) -> Opt:
    """An :class:`Opt` whose spellings are given space-separated (``"-o --output"``)."""
    return Opt(tuple(names.split()), value, path, ask, becomes, operands, gives_pattern, deletes, links)


class Sub(Struct, frozen=True):
    """A subcommand (or the whole command of a tool without subcommands)."""

    cls: CommandClass | None
    """None: no built-in verdict (the rules or the default action decide); files are still judged."""
    reason: str = ""
    options: tuple[Opt, ...] = ()
    operands: Operands = "none"
    after_dashdash: Operands | None = None
    """Which operands after ``--`` are files (default: as ``operands``)."""
    with_operands: CommandClass | None = None
    """The class when operands come before ``--`` (``git checkout BRANCH`` imports; ``git checkout -b new`` writes)."""
    subcommands: Mapping[str, Sub] = field(default_factory=dict)
    """Nested subcommands (``git stash list``)."""
    default: str = ""
    """The nested subcommand meant when none is named (``git stash`` is ``git stash push``)."""
    unknown: Sub | None = None
    """What a nested subcommand not in the table is (default: no built-in verdict)."""
    deletes: bool = False
    links: bool = False
    """It may create symbolic or hard links (``ln``, a checkout of a commit holding links)."""
    node_ids: bool = False
    """Operands may carry ``::test`` suffixes (pytest node ids)."""
    operand_asks: tuple[tuple[str, str], ...] = ()
    """Operands that make the command ask: (a regular expression the whole operand matches, the reason)."""


class ToolTable(Struct, frozen=True):
    """One program: its own options, its subcommands, and how it spells options."""

    name: str
    options: tuple[Opt, ...] = ()
    """Options of the program itself (``git -C``); for ``options_anywhere`` tools, valid after the subcommand too."""
    subcommands: Mapping[str, Sub] = field(default_factory=dict)
    main: Sub | None = None
    """For a program without subcommands: the command itself. With subcommands: ``tool`` alone."""
    unknown_option: str = ""
    """When set, an option of the program itself that the table does not know asks, for this reason."""
    options_anywhere: bool = False
    """The program's own options may also follow the subcommand (``npm test --prefix x``, ``cargo build -Z x``)."""
    abbreviations: bool = True
    """Unique prefixes of long options are accepted (GNU getopt, git, argparse, npm)."""
    single_dash_long: bool = False
    """Long options are written with one dash (``go build -toolexec x``)."""
    msbuild_switches: bool = False
    """``-name:value`` and ``/name:value`` switches (``dotnet build -bl:out.binlog``)."""
    entry: tuple[str, ...] = ()
    """The words that start the command when not just ``name`` (``python -m pytest``)."""
