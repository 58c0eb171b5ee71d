"""Custom slash commands: markdown files whose body, with the arguments filled in, is sent as the request.

Found in the user config dir's ``commands/`` and the project's ``.ironhive/commands/``; Claude Code's
``~/.claude/commands/`` and ``.claude/commands/`` are read as they are. A subfolder makes a namespace
(``git/review.md`` is ``/git:review``). ``.ironhive`` shadows ``.claude`` in the same place, but a
project's command never takes a name from the person's own: it is offered as ``/project:NAME``
instead. Every shadowing is recorded so it can be shown. A project command's ``model:`` and ``mode:``
count only in a trusted project, and its ``mode:`` may only tighten (see :func:`command_settings`).

Three looks at different costs: :func:`discover_commands` checks every file (``/help``);
:func:`listed_commands` returns the last catalog while none of its folders changed (Tab: one stat per
folder, whatever the number of commands); :func:`current_command` checks the one file a ``/name`` runs.
"""

from __future__ import annotations

import re
import shlex
import threading
from functools import partial
from pathlib import Path
from typing import Any, Literal

from msgspec import Struct, field
from msgspec.structs import replace

from engine.folder_stamps import SETTLE_NS, FolderWalk, walk
from engine.parsed_files import ParsedFiles
from engine.paths import project_root, user_config_dir
from engine.safe_read import UnsafeFile, read_bounded

Scope = Literal["user", "project"]
PROJECT_PREFIX = "project:"
"""The name under which a project command is offered when the person has a command of the same name."""
MAX_COMMAND_BYTES = 256 * 1024
_POSITIONAL = re.compile(r"\$(\d)")
_NAME_PART = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]*$")


class CustomCommand(Struct, frozen=True, kw_only=True):
    """One command file."""

    name: str
    """What follows the slash: ``review``, or ``git:review`` for ``git/review.md``."""
    body: str
    path: Path
    folder: Path
    """The commands folder it was found in (its name is its path under it)."""
    scope: Scope
    description: str = ""
    argument_hint: str = ""
    model: str | None = None
    """The model for the request this command sends (the session's when unset)."""
    mode: str | None = None
    """``plan`` or ``work``: the mode the command switches to before sending."""

    def expand(self, arguments: str) -> str:
        """The request: ``$ARGUMENTS`` and ``$1``..``$9`` filled in; arguments no placeholder took are appended."""
        words = _split(arguments)
        used = "$ARGUMENTS" in self.body or _POSITIONAL.search(self.body) is not None
        text = self.body.replace("$ARGUMENTS", arguments)
        text = _POSITIONAL.sub(lambda m: words[int(m.group(1)) - 1] if 0 < int(m.group(1)) <= len(words) else "", text)
        if arguments and not used:
            text = f"{text}\n\nARGUMENTS: {arguments}"
        return text


class Shadowed(Struct, frozen=True, kw_only=True):
    """A command file that another of the same name hides."""

    name: str
    hidden: Path
    by: Path | None
    """The file that wins; None when a built-in command has the name."""
    offered_as: str | None = None
    """The other name the hidden command is offered under (a project's command beside the person's own)."""


class CommandSettings(Struct, frozen=True, kw_only=True):
    """What a command may change for its request: the model and mode it takes effect with, and what was not applied."""

    model: str | None = None
    mode: str | None = None
    ignored: tuple[str, ...] = ()


def command_settings(command: CustomCommand, *, trusted: bool, current_mode: str) -> CommandSettings:
    """The ``model:`` and ``mode:`` a command's request runs with.

    A project's command is text somebody else wrote: in a project the person has not trusted its model
    and mode are ignored, and even in a trusted one its mode may only tighten (``plan``), never take a
    session out of plan mode. The person's own commands apply as written.
    """
    if command.scope == "user":
        return CommandSettings(model=command.model, mode=command.mode)
    ignored: list[str] = []
    model, mode = command.model, command.mode
    if not trusted:
        ignored += [f"model: {model}"] if model else []
        ignored += [f"mode: {mode}"] if mode else []
        return CommandSettings(ignored=tuple(ignored))
    if mode == "work" and current_mode == "plan":
        ignored.append("mode: work (a project's command may not leave plan mode)")
        mode = None
    return CommandSettings(model=model, mode=mode, ignored=tuple(ignored))


class CommandCatalog(Struct, frozen=True, kw_only=True):
    """The custom commands of a directory, what is shadowed, and the files that could not be read."""

    commands: dict[str, CustomCommand] = field(default_factory=dict)
    shadowed: tuple[Shadowed, ...] = ()
    problems: tuple[str, ...] = ()


def command_roots(cwd: Path, home: Path | None = None) -> list[tuple[Path, Scope]]:
    """The folders commands come from, the weakest first (a later one shadows an earlier one)."""
    home = home if home is not None else Path.home()
    root = project_root(cwd)
    return [
        (home / ".claude" / "commands", "user"),
        (user_config_dir() / "commands", "user"),
        (root / ".claude" / "commands", "project"),
        (root / ".ironhive" / "commands", "project"),
    ]


_PARSED: ParsedFiles[CustomCommand] = ParsedFiles(settle_ns=SETTLE_NS)
"""Command files already read, kept while unchanged: ``/help`` and ``/name`` check each file's stamp."""
_LISTED: dict[tuple[object, ...], tuple[tuple[FolderWalk, ...], CommandCatalog]] = {}
"""The last catalog of each set of roots, with the walks it came from: Tab lists it while no folder changed."""
_MAX_LISTED = 16
_LOCK = threading.Lock()
"""One discovery at a time: the REPL lists the commands ahead, in a thread, while the person types."""


def discover_commands(cwd: Path, builtins: frozenset[str] = frozenset(), home: Path | None = None) -> CommandCatalog:
    """Every custom command for ``cwd``, each file checked (and read again when changed).

    ``builtins`` are names a command file cannot take. The catalog is kept for :func:`listed_commands`.
    """
    roots = command_roots(cwd, home)
    with _LOCK:
        walks = tuple(walk(folder, ".md") for folder, _ in roots)
        found = _catalog(roots, walks, builtins)
        key = (tuple(roots), builtins)
        _LISTED.pop(key, None)
        if len(_LISTED) >= _MAX_LISTED:
            del _LISTED[next(iter(_LISTED))]
        _LISTED[key] = (walks, found)
    return found


def listed_commands(cwd: Path, builtins: frozenset[str] = frozenset(), home: Path | None = None) -> CommandCatalog:
    """The custom commands for ``cwd`` as last discovered, while none of their folders changed (one stat each).

    A file added, removed or renamed changes its folder, and the commands are discovered again; a file
    edited in place does not: its new description shows at the next change of a folder or the next
    :func:`discover_commands`. What a command runs comes from :func:`current_command`.
    """
    kept = _LISTED.get((tuple(command_roots(cwd, home)), builtins))
    if kept is not None and all(w.unchanged() for w in kept[0]):
        return kept[1]
    return discover_commands(cwd, builtins, home)


def current_command(command: CustomCommand) -> CustomCommand:
    """``command`` as its file says now: read again when the file changed; raises ``CommandFileError``."""
    with _LOCK:
        fresh = _PARSED.get(
            (command.path, command.folder, command.scope),
            command.path,
            partial(read_command, command.path, command.folder, command.scope),
        )
    return fresh if fresh.name == command.name else replace(fresh, name=command.name)


def _catalog(
    roots: list[tuple[Path, Scope]], walks: tuple[FolderWalk, ...], builtins: frozenset[str]
) -> CommandCatalog:
    found: dict[str, CustomCommand] = {}
    shadowed: list[Shadowed] = []
    problems: list[str] = []
    for (folder, scope), listing in zip(roots, walks, strict=True):
        for path in listing.files:
            try:
                command = _PARSED.get((path, folder, scope), path, partial(read_command, path, folder, scope))
            except CommandFileError as error:
                problems.append(str(error))
                continue
            earlier = found.get(command.name)
            if earlier is not None and earlier.scope == "user" and scope == "project":
                command = replace(command, name=PROJECT_PREFIX + command.name)
                shadowed.append(Shadowed(name=earlier.name, hidden=path, by=earlier.path, offered_as=command.name))
                earlier = found.get(command.name)
            if earlier is not None:
                shadowed.append(Shadowed(name=command.name, hidden=earlier.path, by=path))
            found[command.name] = command
    for name in sorted(builtins & found.keys()):
        shadowed.append(Shadowed(name=name, hidden=found.pop(name).path, by=None))
    return CommandCatalog(commands=found, shadowed=tuple(shadowed), problems=tuple(problems))


class CommandFileError(Exception):
    """A command file that cannot be used: its message names the file and the problem."""


def read_command(path: Path, folder: Path, scope: Scope) -> CustomCommand:
    """The command in ``path`` (under ``folder``); raises ``CommandFileError``."""
    relative = path.relative_to(folder).with_suffix("")
    if not all(_NAME_PART.match(part) for part in relative.parts):
        raise CommandFileError(f"{path}: a command name may hold letters, digits, '.', '_' and '-' only")
    try:
        # a project's command is never read through a link out of its folder
        within = folder if scope == "project" else None
        text = read_bounded(path, limit=MAX_COMMAND_BYTES, within=within).decode("utf-8")
    except UnsafeFile as refused:  # too large, a FIFO, a folder named *.md...
        raise CommandFileError(f"{path}: {refused}") from None
    except (OSError, UnicodeDecodeError) as error:
        raise CommandFileError(f"{path}: cannot be read ({error})") from None
    text = text.replace("\r\n", "\n").replace("\r", "\n") if "\r" in text else text
    meta, body = _frontmatter(text, path)
    return CustomCommand(
        name=":".join(relative.parts),
        body=body,
        path=path,
        folder=folder,
        scope=scope,
        description=_text(meta.get("description")),
        argument_hint=_text(meta.get("argument-hint")),
        model=_text(meta.get("model")) or None,
        mode=_mode(meta.get("mode"), path),
    )


def _frontmatter(text: str, path: Path) -> tuple[dict[str, Any], str]:
    if not text.startswith("---"):
        return {}, text.strip()
    import yaml  # only for a file with frontmatter: the prompt comes up before it is needed

    from engine.config.yaml_reader import load_yaml  # no aliases: `description: *bomb` would expand when shown

    parts = text.split("---", 2)
    if len(parts) < 3:
        raise CommandFileError(f"{path}: the frontmatter is not closed with ---")
    try:
        meta = load_yaml(parts[1]) or {}
    except yaml.YAMLError as error:
        raise CommandFileError(_yaml_problem(path, error)) from None
    if not isinstance(meta, dict):
        raise CommandFileError(f"{path}: the frontmatter must be a mapping")
    return meta, parts[2].strip()


def _yaml_problem(path: Path, error: Exception) -> str:
    """One line, ``file:line: ...``, for a frontmatter YAML cannot read (the frontmatter starts on line 1)."""
    from engine.config.yaml_reader import Refused

    if isinstance(error, Refused):
        line, problem = error.line, error.problem
    else:
        mark = getattr(error, "problem_mark", None)
        line = mark.line + 1 if mark is not None else 0
        problem = getattr(error, "problem", None) or "it cannot be parsed"
    where = f"{path}:{line}" if line else str(path)
    return f"{where}: the frontmatter is not valid YAML: {problem}".replace("\n", " ")


def _mode(value: object, path: Path) -> str | None:
    if value is None:
        return None
    if value not in ("plan", "work"):
        raise CommandFileError(f"{path}: mode must be plan or work, not {value!r}")
    return str(value)


def _text(value: object) -> str:
    return "" if value is None else str(value).strip()


def _split(arguments: str) -> list[str]:
    try:
        return shlex.split(arguments)
    except ValueError:  # an unclosed quote: plain words rather than an error
        return arguments.split()
