"""Whether git, run in a folder, would start programs that the repository's own configuration names.

The rules allow git's reading subcommands unasked, but a repository's configuration can make them run
programs: ``core.fsmonitor`` on ``git status``, a ``diff.<driver>.textconv`` or ``diff.external`` on
``git diff``, a ``filter.<driver>.clean`` on ``git status``, ``gpg.program`` on ``git log`` when
``log.showSignature`` is on... The names of most such keys are chosen by the repository (the driver's
name), so they cannot all be switched off from outside: :func:`git_config_risk` reads the repository's
configuration files without running git (:mod:`engine.git_repository`, includes inside the repository
followed) and says which keys name a program, for the ask. A configuration hive cannot read in full (an
include outside the repository, a line git rejects, a file too large) is said too: hive cannot tell.

The keys hive neutralises for every command it runs (:mod:`engine.git_environment`: the pager, the
editors, ``core.fsmonitor``) would not run, but ``core.fsmonitor`` is named here anyway, as git outside
hive would run it. The files are parsed once per version (:func:`engine.git_config.read_config_file`).
"""

from __future__ import annotations

from pathlib import Path

from engine.git_config import ConfigEntry
from engine.git_repository import SourcedEntry, find_repository, repository_config

_NAMED_KEYS: dict[str, frozenset[str]] = {
    "core": frozenset({"sshcommand", "gitproxy", "askpass", "alternaterefscommand"}),
    "diff": frozenset({"external", "textconv", "command"}),
    "filter": frozenset({"clean", "smudge", "process"}),
    "merge": frozenset({"driver"}),
    "credential": frozenset({"helper"}),
    "gpg": frozenset({"program", "defaultkeycommand"}),
    "difftool": frozenset({"cmd"}),
    "mergetool": frozenset({"cmd"}),
    "trailer": frozenset({"command", "cmd"}),
    "remote": frozenset({"uploadpack", "receivepack"}),
    "sendemail": frozenset({"tocmd", "cccmd", "sendmailcmd"}),
    "imap": frozenset({"tunnel"}),
    "browser": frozenset({"cmd"}),
    "man": frozenset({"cmd"}),
}
"""By section, the names whose value is a program git runs (with any subsection: ``diff.<driver>.textconv``)."""
_BANG_KEYS = frozenset({("alias", None), ("submodule", "update")})
"""``(section, name)`` whose value runs a shell command when it starts with ``!`` (None: any name)."""
_BOOLEANS = frozenset({"", "true", "false", "yes", "no", "on", "off", "1", "0"})
_LFS = frozenset(
    {
        ("clean", "git-lfs clean -- %f"),
        ("smudge", "git-lfs smudge -- %f"),
        ("smudge", "git-lfs smudge --skip -- %f"),
        ("process", "git-lfs filter-process"),
        ("process", "git-lfs filter-process --skip"),
    }
)
"""The filter Git LFS installs (``git lfs install --local``), word for word: it runs git-lfs, not the repository's code."""
_SHOWN = 3
_VALUE_SHOWN = 80


def git_config_risk(directory: Path) -> str:
    """Why git run in ``directory`` (resolved) would run programs its repository's configuration names; "" if not."""
    repository = find_repository(directory)
    if repository is None:
        return ""
    config = repository_config(repository)
    programs = [_shown(item, repository.work_tree) for item in config.entries if runs_program(item.entry)]
    if programs:
        listed = "; ".join(programs[:_SHOWN]) + (
            f" and {len(programs) - _SHOWN} more" if len(programs) > _SHOWN else ""
        )
        return f"this repository's git config runs programs: {listed}"
    if config.problems:
        return (
            f"hive cannot read all of this repository's git config ({_visible(config.problems[0])}), so it cannot tell "
            "which programs git would run"
        )
    return ""


def runs_program(entry: ConfigEntry) -> bool:
    """Whether git runs the program this entry names (a key git runs a program from, with a program in it)."""
    value = (entry.value or "").strip()
    if not value:
        return False
    if entry.section == "core" and entry.subsection is None and entry.name == "fsmonitor":
        return value.lower() not in _BOOLEANS  # true: git's own daemon; a path: a program
    if (entry.section, None) in _BANG_KEYS or (entry.section, entry.name) in _BANG_KEYS:
        return value.startswith("!")
    if entry.section == "protocol" and entry.name == "allow":
        return entry.subsection in (None, "ext") and value.lower() != "never"
    if entry.section == "filter" and entry.subsection == "lfs" and (entry.name, value) in _LFS:
        return False
    return entry.name in _NAMED_KEYS.get(entry.section, frozenset())


def _shown(item: SourcedEntry, work_tree: Path) -> str:
    """``core.fsmonitor = ./x`` (and the file, when not the repository's own config), escaped and shortened."""
    value = item.entry.value or ""
    if len(value) > _VALUE_SHOWN:
        value = value[:_VALUE_SHOWN] + "..."
    text = f"{item.entry.key} = {_visible(value)}"
    if item.file.name == "config" and item.file.parent.name == ".git":
        return text
    where = item.file.relative_to(work_tree) if item.file.is_relative_to(work_tree) else item.file
    return f"{text} (in {_visible(str(where))})"


def _visible(text: str) -> str:
    """``text`` with control characters written as escapes: a value is shown, never obeyed by the terminal."""
    return "".join(char if char.isprintable() else repr(char)[1:-1] for char in text)
