"""``.ironhive/permissions.yaml`` (or ``.yml``, ``.json``) in the project and the user config dir.

The rules saved from "always in this project" answers (in the user's config folder, see
:mod:`engine.policy.local_rules`) are one more layer on top; they never replace the built-in defaults.
An untrusted project's files may only tighten: their ask and deny rules join the rules in force
without them, and nothing else of them counts (see :mod:`engine.trust.permissions`).

A file that exists but is not a valid configuration is an error naming the file and the line, never
a fallback to the defaults (which allow more). Reading and checking a file is
:mod:`engine.policy.permission_files`, imported only when there is a file to read.
"""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Literal

from msgspec import Struct, field

from engine.paths import user_config_dir
from engine.policy.defaults import DEFAULT_SOURCE, default_layer
from engine.policy.rules import RuleBook
from engine.workspace import Workspace, as_workspace

PERMISSIONS_NAMES = ("permissions.yaml", "permissions.yml", "permissions.json")
LOCAL_NAME = "permissions.local.yaml"
"""Where earlier versions saved "always in this project" answers, in the project's ``.ironhive`` (trusted only)."""
SAVED_RULES_DIR = "saved-rules"


class McpAllowlist(Struct, frozen=True):
    """``guards.mcp_allowlist`` of one file: the only MCP servers and tools (name patterns) that may be called."""

    servers: tuple[str, ...] = ()
    tools: tuple[str, ...] = ()
    """Full names (``mcp__github__get_issue``) or patterns of them."""
    source: str = ""
    """The file that set it."""


class GuardSettings(Struct, frozen=True):
    """Which guards are on, combined over the files: on in any is on, the stricter action wins, allowlists add up."""

    prompt_injection: bool = False
    """The injection guard on every tool result."""
    prompt_injection_action: Literal["flag", "withhold"] = "flag"
    injection_on_mcp: bool = True
    """The injection guard on MCP results even when ``prompt_injection`` is off (the web tools have it on always):
    only the person's own file, or a trusted project's, turns it off (``prompt_injection: {enabled: false}``)."""
    mcp_allowlists: tuple[McpAllowlist, ...] = ()
    """Each one applies: an MCP call must pass every allowlist set (none set: every server may be called)."""
    dangerous_arguments: Literal["off", "ask", "deny"] = "off"
    """What a call whose arguments carry a dangerous shape gets (:mod:`engine.policy.dangerous_arguments`)."""


class PermissionConfig(Struct, frozen=True):
    """The rules in force for a working directory and the files they came from."""

    book: RuleBook
    sources: tuple[Path, ...] = ()
    guards: GuardSettings = field(default_factory=GuardSettings)
    sandboxed: bool = True
    """Whether shell commands run in the OS sandbox; the rules were chosen for it (see :func:`load_permissions`)."""
    ignored: tuple[str, ...] = ()
    """What an untrusted project's permission files asked for and did not get."""

    @property
    def uses_defaults(self) -> bool:
        """True when the built-in defaults are one of the layers."""
        return any(layer.source == DEFAULT_SOURCE for layer in self.book.layers)


def find_permissions_file(folder: Path) -> Path | None:
    """The first of ``permissions.yaml``, ``.yml``, ``.json`` present in ``folder``."""
    for name in PERMISSIONS_NAMES:
        candidate = folder / name
        if candidate.exists():  # a folder or a FIFO of that name is an error when read, never skipped
            return candidate
    return None


def load_permissions(where: Workspace | Path, *, sandboxed: bool = True) -> PermissionConfig:
    """The user's and the project's permission files combined, or the built-in defaults when neither exists.

    ``sandboxed`` is the one place the policy learns whether shell commands run in the OS sandbox:
    the built-in defaults allow running the project's own code (tests, builds) only when they do, and
    rules marked ``sandboxed_only`` count only then. Pass False when the sandbox is off or cannot start.
    """
    workspace = as_workspace(where)
    user_file = find_permissions_file(user_config_dir())
    project_file = find_permissions_file(workspace.config_dir)
    legacy = workspace.config_dir / LOCAL_NAME
    shipped_answers = [legacy] if legacy.is_file() else []
    saved = [path for path in (saved_rules_file(workspace.root),) if path.is_file()]
    if workspace.trusted:
        files = [path for path in (user_file, project_file) if path is not None]
        saved, restricting = saved + shipped_answers, []
    else:
        files = [user_file] if user_file is not None else []
        restricting = [path for path in (project_file,) if path is not None] + shipped_answers
    if not files and not saved and not restricting:
        return default_permissions(sandboxed=sandboxed)
    from engine.policy.permission_files import combined_permissions  # imported here: only files need reading

    config = combined_permissions(files, saved, sandboxed=sandboxed)
    if not restricting:
        return config
    from engine.trust.permissions import with_project_restrictions

    return with_project_restrictions(config, restricting, workspace.root)


def saved_rules_file(root: Path) -> Path:
    """Where the rules saved from "always in this project" answers in the project at ``root`` live."""
    tag = hashlib.sha256(str(root).encode()).hexdigest()[:12]
    return user_config_dir() / SAVED_RULES_DIR / f"{root.name or 'root'}-{tag}.yaml"


def default_permissions(*, sandboxed: bool = True) -> PermissionConfig:
    """The built-in defaults alone (for commands run in the sandbox, unless ``sandboxed`` is False)."""
    return PermissionConfig(book=RuleBook((default_layer(sandboxed=sandboxed),)), sandboxed=sandboxed)
