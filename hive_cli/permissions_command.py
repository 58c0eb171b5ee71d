"""``hive permissions check`` and ``hive permissions show``: ask the rules about a call, or print them."""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from engine.config.settings import load_settings
from engine.errors import UserError
from engine.events import ToolCall
from engine.paths import project_root
from engine.policy.config import PermissionConfig, load_permissions
from engine.policy.gate import Judgement
from engine.policy.modes import is_read_only
from engine.policy.rules import CATEGORIES, Rule
from engine.policy.unconfined import gate_policy
from engine.reports import ToolKind
from engine.sandbox.options import SandboxMode
from engine.sandbox.status import SandboxStatus, check_sandbox
from engine.tools.base import ToolContext, ToolSpec
from engine.tools.builtin import builtin_tools
from hive_cli.terminal_text import echo, echo_json

ALIASES = {
    "bash": "execute_command",
    "shell": "execute_command",
    "read": "read_file",
    "write": "write_file",
    "edit": "edit_file",
    "list": "list_directory",
    "ls": "list_directory",
    "glob": "glob_files",
    "grep": "grep_files",
}
MAIN_ARGUMENT = {
    "execute_command": "command",
    "read_file": "path",
    "write_file": "path",
    "edit_file": "path",
    "list_directory": "path",
    "glob_files": "pattern",
    "grep_files": "pattern",
}
_KEY = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def sandbox_here(cwd: Path, mode: SandboxMode | None) -> SandboxStatus:
    """The sandbox a session in ``cwd`` would use (``mode`` from ``--sandbox`` wins), probed."""
    return check_sandbox(*load_settings(cwd).sandbox_options(project_root(cwd), mode))


def check(
    tool: str, values: Sequence[str], cwd: Path, mode: str, output_format: str, sandbox: SandboxMode | None = None
) -> None:
    """Print the verdict of the rules in force for ``cwd`` on one call, and what would contain it."""
    name = ALIASES.get(tool, tool)
    spec = _spec(name)
    arguments = parse_arguments(spec, values)
    status = sandbox_here(cwd, sandbox)
    judgement = judge(load_permissions(cwd, sandboxed=status.confined), spec, arguments, cwd, mode, status)
    if output_format == "json":
        payload = {
            "verdict": judgement.verdict,
            "rule": judgement.rule,
            "source": judgement.source,
            "reason": judgement.reason,
            "tool": name,
            "arguments": arguments,
            "mode": mode,
            "sandbox": status.mode,
            "sandbox_active": status.confined,
            "sandbox_problem": status.problem,
        }
        echo_json(json.dumps(payload, ensure_ascii=False))
        return
    echo(f"{judgement.verdict}  {name} {json.dumps(arguments, ensure_ascii=False)}")
    echo(f"  rule:    {judgement.rule or '(none)'}")
    echo(f"  source:  {judgement.source or '-'}")
    echo(f"  reason:  {judgement.reason}")
    echo(f"  sandbox: {_sandbox_line(status)}")


def judge(
    config: PermissionConfig,
    spec: ToolSpec,
    arguments: dict[str, Any],
    cwd: Path,
    mode: str,
    sandbox: SandboxStatus | None = None,
) -> Judgement:
    """The verdict hive would reach on this call in ``mode`` (with ``sandbox`` as it is here)."""
    if mode == "plan" and not is_read_only(spec, config.book.read_only_tools):
        return Judgement(
            verdict="deny",
            reason=f"{spec.name} is not available in plan mode (read-only tools only)",
            source="--mode plan",
        )
    ctx = ToolContext(cwd=cwd, data_dir=cwd)
    problem = sandbox.problem if sandbox is not None and sandbox.failed else None
    confined = sandbox.options if sandbox is not None and sandbox.confined else None
    policy = gate_policy(config, problem, confined=confined)
    return policy.judge(spec, ToolCall(id="check", name=spec.name, arguments=arguments), ctx)


def _sandbox_line(status: SandboxStatus) -> str:
    if status.mode == "off":
        return "off: commands run with your full access"
    if status.failed:
        return f"{status.mode} asked, but it cannot start here ({status.problem}): every command asks"
    return f"{status.mode} ({status.description})"


def parse_arguments(spec: ToolSpec, values: Sequence[str]) -> dict[str, Any]:
    """``KEY=VALUE`` pairs (values typed by the tool's schema), and bare words as the tool's main argument."""
    properties: dict[str, Any] = spec.parameters.get("properties", {})
    arguments: dict[str, Any] = {}
    bare: list[str] = []
    for value in values:
        key, sep, raw = value.partition("=")
        if sep and _KEY.fullmatch(key) and (key in properties or not properties):
            arguments[key] = _typed(raw, properties.get(key, {}))
        else:
            bare.append(value)
    if bare:
        main = MAIN_ARGUMENT.get(spec.name)
        if main is None:
            raise UserError(f"give {spec.name}'s arguments as KEY=VALUE (got {bare[0]!r})")
        arguments[main] = " ".join(bare)
    _require_arguments(spec, arguments)
    return arguments


def _require_arguments(spec: ToolSpec, arguments: dict[str, Any]) -> None:
    """A call without the argument the rules judge (bash's command, a file tool's path) is a usage error:
    there is no call to judge. Other required arguments may be left out (``check write notes.md``)."""
    main = MAIN_ARGUMENT.get(spec.name)
    if main is None or main in arguments or main not in spec.parameters.get("required", ()):
        return
    raise UserError(f"{spec.name} needs its {main!r}: give it after the tool's name, or as {main}=...")


def _typed(raw: str, schema: dict[str, Any]) -> Any:
    if schema.get("type") == "string":
        return raw
    try:
        return json.loads(raw)
    except json.JSONDecodeError:
        return raw


def _spec(name: str) -> ToolSpec:
    known = {tool.spec.name: tool.spec for tool in builtin_tools()}
    kind: ToolKind = "mcp" if name.startswith("mcp__") else "tool"
    # Without the server at hand its read-only mark is unknown, so an MCP tool is judged as not read-only.
    return known.get(name) or ToolSpec(name=name, description="", parameters={}, kind=kind)


def show(cwd: Path, output_format: str, sandbox: SandboxMode | None = None) -> None:
    """Print the rules in force for ``cwd``, category by category, with where each came from."""
    status = sandbox_here(cwd, sandbox)
    config = load_permissions(cwd, sandboxed=status.confined)
    book = config.book
    action, action_source = book.default_action
    if output_format == "json":
        payload = {
            "sources": [str(path) for path in config.sources] or ["built-in defaults"],
            "default_action": {"action": action, "source": action_source},
            "ask_before_delete": book.ask_before_delete,
            "sandboxed": config.sandboxed,
            "sandbox": status.mode,
            "sandbox_active": status.confined,
            "mcp_read_only": _mcp_read_only(config),
            "read_only_tools": list(book.read_only_tools),
            "guards": _guards_payload(config),
            "ignored": list(config.ignored),
            "rules": {
                category: [
                    {
                        "pattern": r.pattern,
                        "action": _action(r),
                        "priority": r.priority,
                        "reason": r.reason,
                        "source": r.source,
                    }
                    | ({"exact": True} if r.exact else {})
                    for r in book.rules(category)
                ]
                for category in CATEGORIES
            },
        }
        echo_json(json.dumps(payload, indent=2, ensure_ascii=False))
        return
    for line in show_lines(cwd, sandbox, status):
        echo(line)


def show_lines(cwd: Path, sandbox: SandboxMode | None = None, status: SandboxStatus | None = None) -> list[str]:
    """``hive permissions show`` as lines of text (the REPL wraps them itself)."""
    status = status or sandbox_here(cwd, sandbox)
    config = load_permissions(cwd, sandboxed=status.confined)
    return [f"sandbox: {_sandbox_line(status)}", *_show_lines(config)]


def _show_lines(config: PermissionConfig) -> list[str]:
    book = config.book
    action, action_source = book.default_action
    files = ", ".join(str(path) for path in config.sources) or "none (the built-in defaults apply)"
    lines = [
        f"files: {files}",
        f"default action: {action} ({action_source})",
        f"ask before delete: {'yes' if book.ask_before_delete else 'no'}",
        f"commands run in the sandbox: {'yes' if config.sandboxed else 'no (what runs project code asks)'}",
        f"read-only MCP tools (readOnlyHint): {_mcp_read_only(config) or 'the default action'}",
        f"read-only tools: {', '.join(book.read_only_tools) or '(the read-only built-ins only)'}",
        *_guard_lines(config),
    ]
    if config.ignored:
        lines.append("ignored (the project is not trusted; see hive trust):")
        lines += [f"  - {item}" for item in config.ignored]
    for category in CATEGORIES:
        rules = book.rules(category)
        lines.append("")
        lines.append(f"{category}:" + ("" if rules else " (no rules)"))
        width = max((len(r.pattern) for r in rules), default=0)
        for r in rules:
            priority = (f" p{r.priority}" if r.priority else "") + (" (exact)" if r.exact else "")
            reason = f"  {r.reason}" if r.reason else ""
            lines.append(f"  {_action(r):<5} {r.pattern:<{width}}{priority}  [{r.source}]{reason}")
    return lines


def _action(rule: Rule) -> str:
    """A rule's action, or ``table`` when a command table decides it (see docs/permissions.md, "what the defaults allow")."""
    return "table" if rule.judge is not None else rule.action


def _mcp_read_only(config: PermissionConfig) -> str | None:
    chosen = config.book.mcp_read_only
    return f"{chosen[0]} ({chosen[1]})" if chosen else None


def _injection_scope(config: PermissionConfig) -> str:
    guards = config.guards
    if guards.prompt_injection:
        return f"on for every result ({guards.prompt_injection_action})"
    if guards.injection_on_mcp:
        return f"on for MCP results ({guards.prompt_injection_action}; the web tools' pages always)"
    return "off (the web tools' pages are still judged)"


def _guard_lines(config: PermissionConfig) -> list[str]:
    guards = config.guards
    lines = [f"prompt-injection guard: {_injection_scope(config)}"]
    lines += [
        f"MCP allowlist ({allowlist.source}): servers {', '.join(allowlist.servers) or '(none)'}; "
        f"tools {', '.join(allowlist.tools) or '(none)'}"
        for allowlist in guards.mcp_allowlists
    ]
    lines.append(f"dangerous-argument guard: {guards.dangerous_arguments}")
    return lines


def _guards_payload(config: PermissionConfig) -> dict[str, object]:
    guards = config.guards
    return {
        "prompt_injection": guards.prompt_injection,
        "prompt_injection_scope": _injection_scope(config),
        "mcp_allowlists": [
            {"servers": list(a.servers), "tools": list(a.tools), "source": a.source} for a in guards.mcp_allowlists
        ],
        "dangerous_arguments": guards.dangerous_arguments,
    }
