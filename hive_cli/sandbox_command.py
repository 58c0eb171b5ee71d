"""``hive sandbox check``: start the sandbox this project would use, try what it must stop, print what holds."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

from engine.config.settings import load_settings
from engine.paths import project_root
from engine.sandbox.options import SandboxMode
from engine.sandbox.selftest import SelfTestReport, self_test
from hive_cli.terminal_text import echo, echo_json

MARKS = {True: "✓", False: "✗", None: "–"}
LABELS = {
    "starts": "the sandbox starts",
    "project_writable": "the project is writable (workspace-write only)",
    "outside_write_refused": "a write outside the project is refused",
    "ssh_hidden": "~/.ssh is hidden",
    "network": "the network is as configured",
    "secrets_absent": "secret environment variables do not reach commands",
    "unix_sockets": "unix sockets are refused (unless sandbox.allow_unix_sockets)",
}


def check(cwd: Path, mode: SandboxMode | None, output_format: str) -> int:
    """Run the self-test in ``cwd`` with the project's sandbox settings (``mode`` wins); 0 when nothing failed."""
    options = load_settings(cwd).sandbox_options(project_root(cwd), mode)[0]
    report = asyncio.run(self_test(options, cwd))
    if output_format == "json":
        echo_json(json.dumps(_as_dict(report), indent=2))
    else:
        _print(report, options.mode == "off")
    return 0 if report.ok else 1


def _print(report: SelfTestReport, off: bool) -> None:
    echo(report.sandbox)
    for item in report.checks:
        echo(f"  {MARKS[item.ok]} {LABELS.get(item.name, item.name)}: {item.detail}")
    if off:
        echo("the sandbox is off: commands run with your full access")
    else:
        echo("everything holds" if report.ok else "something does not hold (see ✗ above)")


def _as_dict(report: SelfTestReport) -> dict[str, object]:
    return {
        "sandbox": report.sandbox,
        "ok": report.ok,
        "checks": [{"name": c.name, "ok": c.ok, "detail": c.detail} for c in report.checks],
    }
