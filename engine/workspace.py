"""The project hive works in, resolved once at the front door: its root and whether the person trusts it.

Every loader of project configuration takes a :class:`Workspace` (or makes one with
:func:`open_workspace`), so none reads a project file without the trust decision beside it. The
decision is computed only from state the person owns (the trust record in the user's config folder)
and the digest of the project's configuration; nothing in the project can vote on its own trust.

- The root is the nearest folder at or above the working directory holding ``.git``, else the working
  directory itself; an ``.ironhive`` below the root is never the project's configuration.
- ``trusted``: the record's digest is the configuration's digest now. ``untrusted``: never trusted,
  or a file under the digest changed since. ``no-config``: the project has no file that could loosen
  hive, so there is nothing to decide. ``own-config``: the project is inside the user's config folder.
  ``trusted-for-run``: ``hive run --trust-project``, for that run only.
"""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from msgspec import Struct

from engine.paths import PROJECT_DIR_NAME, project_root, user_config_dir

CAPABILITY_FILES = tuple(
    f"{PROJECT_DIR_NAME}/{name}"
    for name in (
        "settings.yaml",
        "settings.yml",
        "settings.json",
        "permissions.yaml",
        "permissions.yml",
        "permissions.json",
        "permissions.local.yaml",
        "plugins.yaml",
        "plugins.yml",
    )
) + (".mcp.json",)
"""The files whose content can loosen hive, relative to the project root, at every spelling hive reads."""
COMMAND_FOLDERS = (f"{PROJECT_DIR_NAME}/commands", ".claude/commands")
"""Slash commands: a project's command may name a model and a mode, which count only once it is trusted."""
TrustState = Literal["trusted", "untrusted", "no-config", "own-config", "trusted-for-run"]


class Workspace(Struct, frozen=True, kw_only=True):
    """Where a session works, its project root, and the trust decision for the project's configuration."""

    cwd: Path
    root: Path
    trust: TrustState
    digest: str = ""
    """The digest of the project's configuration now (empty when it has none)."""
    changed: bool = False
    """The person trusted the project once, but its configuration changed since."""

    @property
    def trusted(self) -> bool:
        """Whether the project's configuration takes effect as written (else it may only tighten)."""
        return self.trust != "untrusted"

    @property
    def config_dir(self) -> Path:
        """The project's ``.ironhive`` folder (it may not exist)."""
        return self.root / PROJECT_DIR_NAME

    def root_notice(self) -> str | None:
        """Said when the project root is not the working directory: which folder was taken, and why."""
        if self.root == self.cwd:
            return None
        return f"project root: {self.root} (the nearest folder above {self.cwd} holding .git)"


def open_workspace(cwd: Path, *, trust_for_run: bool = False) -> Workspace:
    """Resolve ``cwd``'s project and decide whether its configuration is trusted (see the module docstring)."""
    cwd = cwd.resolve()
    root = project_root(cwd)
    if not has_configuration(root):
        return Workspace(cwd=cwd, root=root, trust="no-config")
    if _inside(root, user_config_dir()):
        return Workspace(cwd=cwd, root=root, trust="own-config")
    from engine.trust.digest import configuration_files, digest_of  # only a project with configuration pays for it

    files = configuration_files(root)
    _refuse_unreadable(files, root)
    digest = digest_of(files)
    if trust_for_run:
        return Workspace(cwd=cwd, root=root, trust="trusted-for-run", digest=digest)
    from engine.trust.store import record_for

    record = record_for(root)
    if record is not None and record.digest == digest:
        return Workspace(cwd=cwd, root=root, trust="trusted", digest=digest)
    return Workspace(cwd=cwd, root=root, trust="untrusted", digest=digest, changed=record is not None)


def has_configuration(root: Path) -> bool:
    """Whether the project has any file that could loosen hive (most have none: nothing to decide)."""
    names = (*CAPABILITY_FILES, *COMMAND_FOLDERS)
    return any((root / name).exists() or (root / name).is_symlink() for name in names)


def _refuse_unreadable(files: dict[str, str], root: Path) -> None:
    """A capability file hive would read but must not (a link out of the project, a FIFO, too large) stops hive."""
    from engine.errors import ConfigError
    from engine.mcp.config import MCP_JSON

    refused = [
        f"{root / name}: {files[name].removeprefix('refused: ')}"
        for name in CAPABILITY_FILES
        if files[name].startswith("refused:") and name != MCP_JSON  # another tool's file: its loader says so
    ]
    if refused:
        raise ConfigError(
            "\n".join([*refused, "hive reads its configuration only from regular files inside the project"])
        )


def as_workspace(where: Workspace | Path) -> Workspace:
    """``where`` itself, or the workspace of the folder it names."""
    return where if isinstance(where, Workspace) else open_workspace(where)


def _inside(path: Path, folder: Path) -> bool:
    try:
        return path.is_relative_to(folder.resolve())
    except (OSError, RuntimeError):
        return False
