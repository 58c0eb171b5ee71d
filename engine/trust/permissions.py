"""An untrusted project's permission files: their ask and deny rules count, nothing that would loosen does.

The rules in force without the project's files (the user's file, or the built-in defaults, and the
person's saved answers) stay as they are; the project's files add a layer holding only what is
stricter: ask and deny rules, a stricter default action or action for read-only MCP tools,
``ask_before_delete: true``, guards switched on and MCP allowlists. Allow rules, ``read_only_tools``,
a looser default, switching the injection guard's default off and replacing the built-in rules are
what trusting the project would add; they are listed in ``PermissionConfig.ignored``. A deny in any
layer holds (see :mod:`engine.policy.rules`), so a project can always forbid more.
"""

from __future__ import annotations

from pathlib import Path

from msgspec.structs import replace

from engine.policy.config import PermissionConfig
from engine.policy.rules import RESTRICTIVENESS, Action, Layer, RuleBook


def with_project_restrictions(config: PermissionConfig, files: list[Path], root: Path) -> PermissionConfig:
    """``config`` with the stricter part of each of the project's permission ``files`` added as a layer."""
    from engine.policy.guard_entries import combine_guards
    from engine.policy.permission_files import file_layer, load_permissions_file

    layers = list(config.book.layers)
    guards = config.guards
    ignored: list[str] = []
    for path in files:
        parsed = load_permissions_file(path)
        layer = file_layer(path, parsed.file, parsed.lines, config.sandboxed)
        kept, refused = _restrictive_part(layer, RuleBook(tuple(layers)), _shown(path, root))
        layers.append(kept)
        ignored += refused
        guards, refused_guards = combine_guards(guards, parsed.file.guards, _shown(path, root), may_loosen=False)
        ignored += refused_guards
        if not parsed.file.permissions.include_defaults and config.uses_defaults:
            ignored.append(f"replace hive's built-in rules ({_shown(path, root)} does not set include_defaults)")
    return replace(
        config,
        book=RuleBook(tuple(layers)),
        sources=(*config.sources, *files),
        guards=guards,
        ignored=(*config.ignored, *ignored),
    )


def _restrictive_part(layer: Layer, base: RuleBook, shown: str) -> tuple[Layer, list[str]]:
    refused = [
        f"allow {rule.describe()} ({_where(rule.source, shown)})" for rule in layer.rules if rule.action == "allow"
    ]
    refused += [f"read_only_tools: {name} ({shown})" for name in layer.read_only_tools]
    effective_mcp = base.mcp_read_only[0] if base.mcp_read_only else base.default_action[0]
    if _looser(layer.default_action, base.default_action[0]):
        refused.append(f"default_action: {layer.default_action} ({shown})")
    if _looser(layer.mcp_read_only, effective_mcp):
        refused.append(f"mcp_read_only: {layer.mcp_read_only} ({shown})")
    if layer.ask_before_delete is False:
        refused.append(f"ask_before_delete: false ({shown})")
    kept = Layer(
        source=layer.source,
        rules=tuple(rule for rule in layer.rules if rule.action != "allow"),
        default_action=None if _looser(layer.default_action, base.default_action[0]) else layer.default_action,
        ask_before_delete=True if layer.ask_before_delete else None,
        mcp_read_only=None if _looser(layer.mcp_read_only, effective_mcp) else layer.mcp_read_only,
    )
    return kept, refused


def _looser(asked: Action | None, current: Action) -> bool:
    return asked is not None and RESTRICTIVENESS[asked] < RESTRICTIVENESS[current]


def _where(source: str, shown: str) -> str:
    line = source.rsplit(":", 1)[-1]
    return f"{shown}:{line}" if line.isdigit() else shown


def _shown(path: Path, root: Path) -> str:
    return path.relative_to(root).as_posix() if path.is_relative_to(root) else str(path)
