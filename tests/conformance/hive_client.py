"""The client command the MCP conformance suite runs (``make test-conformance``): hive, through its command line.

The suite starts a scenario server, then runs ``python hive_client.py URL`` with the scenario's name in
``MCP_CONFORMANCE_SCENARIO``. This driver points the real ``hive`` at that URL in a fresh HIVE_HOME and
project folder -- ``hive mcp add conformance URL``, ``hive mcp tools conformance --format json``, then
``hive mcp call conformance TOOL --args JSON`` for every tool listed, with arguments made from the tool's
input schema -- and exits with hive's status (the first step that failed, else 0). Each step's command
and output go to stderr, which the suite keeps in ``results/<scenario>-<time>/stderr.txt``.

For an ``auth/*`` scenario the server goes into the user's ``plugins.yaml`` with an ``oauth:`` section
(the pre-registered client from ``MCP_CONFORMANCE_CONTEXT``, and a client metadata document URL), then
``hive mcp login conformance --open-with OPENER`` logs in before the tools are listed; ``tools`` and
``call`` get the same ``--open-with`` so a step-up (403 ``insufficient_scope``) can log in again.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

SERVER = "conformance"
OPENER = Path(__file__).resolve().parent.parent / "support" / "oauth_opener.py"
"""Follows the suite's authorization endpoint (it redirects at once) to hive's loopback redirect."""
CLIENT_METADATA_URL = "https://conformance-test.local/client-metadata.json"
"""The client ID metadata document URL the suite's CIMD scenario expects a client to use."""
STEP_TIMEOUT = 60
TIMED_OUT = 124
SAMPLE_VALUES: dict[str, Any] = {
    "number": 1,
    "integer": 1,
    "string": "hive",
    "boolean": True,
    "array": [],
    "object": {},
}


def main(argv: list[str]) -> int:
    """Run hive's steps against the server URL the suite appended; return hive's status."""
    if len(argv) != 1:
        print("usage: hive_client.py SERVER_URL (the conformance suite appends the URL)", file=sys.stderr)
        return 2
    print(f"scenario: {os.environ.get('MCP_CONFORMANCE_SCENARIO', '(not given)')}", file=sys.stderr)
    with tempfile.TemporaryDirectory(prefix="hive-conformance-") as scratch:
        home, project = Path(scratch, "home"), Path(scratch, "project")
        home.mkdir()
        project.mkdir()
        return drive(argv[0], home, project)


def drive(url: str, home: Path, project: Path) -> int:
    """Add the server (and log in, for an auth scenario), list its tools and call each one; stop at the first failure."""
    auth = os.environ.get("MCP_CONFORMANCE_SCENARIO", "").startswith("auth/")
    added = hive(home, project, "mcp", "add", SERVER, url, *(["--scope", "user"] if auth else []))
    if added.returncode:
        return added.returncode
    opening: tuple[str, ...] = ()
    machine = machine_grant(os.environ.get("MCP_CONFORMANCE_SCENARIO", ""), conformance_context(), home)
    if machine is not None:
        add_oauth_lines(home / "config" / "plugins.yaml", machine)
    elif auth:
        add_oauth_settings(home / "config" / "plugins.yaml", conformance_context())
        opening = ("--open-with", f"{sys.executable} {OPENER}")
        logged_in = hive(home, project, "mcp", "login", SERVER, *opening)
        if logged_in.returncode:
            return logged_in.returncode
    listed = hive(home, project, "mcp", "tools", SERVER, "--format", "json", *opening)
    if listed.returncode:
        return listed.returncode
    for tool in json.loads(listed.stdout):
        arguments = json.dumps(sample_arguments(tool.get("input_schema") or {}))
        options = (*opening, *elicitation_options())
        called = hive(home, project, "mcp", "call", SERVER, tool["name"], "--args", arguments, *options)
        if called.returncode:
            return called.returncode
    return 0


def elicitation_options() -> tuple[str, ...]:
    """The SEP-1034 scenario's server asks for a form whose every field has a default and expects them back."""
    if os.environ.get("MCP_CONFORMANCE_SCENARIO") == "elicitation-sep1034-client-defaults":
        return ("--elicitation", "defaults")
    return ()


def conformance_context() -> dict[str, Any]:
    """The scenario's inputs (``MCP_CONFORMANCE_CONTEXT``, JSON): a pre-registered client's id and secret, for one."""
    try:
        context = json.loads(os.environ.get("MCP_CONFORMANCE_CONTEXT") or "{}")
    except json.JSONDecodeError:
        return {}
    return context if isinstance(context, dict) else {}


def add_oauth_settings(plugins: Path, context: dict[str, Any]) -> None:
    """Give the server (the file's last entry) an ``oauth:`` section: hive's client metadata document URL
    (used where the authorization server supports CIMD) and a pre-registered client from ``context``."""
    settings = {"client_metadata_url": CLIENT_METADATA_URL}
    settings |= {key: context[key] for key in ("client_id", "client_secret") if isinstance(context.get(key), str)}
    add_oauth_lines(plugins, settings)


def machine_grant(scenario: str, context: dict[str, Any], home: Path) -> dict[str, str] | None:
    """The ``oauth:`` section of a scenario whose token hive gets with nobody present (no login); else None."""
    if scenario == "auth/client-credentials-basic":
        return {
            "grant": "client_credentials",
            "client_id": context["client_id"],
            "client_secret": context["client_secret"],
        }
    if scenario == "auth/client-credentials-jwt":
        key = home / "client-key.pem"  # outside the project, readable only by its owner
        key.write_text(context["private_key_pem"], encoding="utf-8")
        key.chmod(0o600)
        return {"grant": "client_credentials", "client_id": context["client_id"], "private_key_file": str(key)}
    if scenario == "auth/cross-app-access-complete-flow":
        keys = ("client_id", "client_secret", "idp_token_endpoint", "idp_client_id")
        return {"grant": "cross_app_access", **{key: context[key] for key in keys}, "id_token": context["idp_id_token"]}
    return None


def add_oauth_lines(plugins: Path, settings: dict[str, str]) -> None:
    """Append an ``oauth:`` section with ``settings`` to the file's last entry (the server just added)."""
    lines = ["    oauth:", *(f"      {key}: {json.dumps(value)}" for key, value in settings.items())]
    text = plugins.read_text(encoding="utf-8")
    plugins.write_text(text.rstrip("\n") + "\n" + "\n".join(lines) + "\n", encoding="utf-8")


def sample_arguments(schema: dict[str, Any]) -> dict[str, Any]:
    """A value for each required property: its default, else its first enum value, else one of its type."""
    properties = schema.get("properties") or {}
    return {name: sample_value(properties.get(name) or {}) for name in schema.get("required") or []}


def sample_value(prop: dict[str, Any]) -> Any:
    """One plausible value for a JSON-schema property."""
    if "default" in prop:
        return prop["default"]
    if prop.get("enum"):
        return prop["enum"][0]
    kind = prop.get("type", "string")
    return SAMPLE_VALUES.get(kind if isinstance(kind, str) else kind[0], "hive")


def hive(home: Path, project: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """Run ``hive ARGS`` (this interpreter's hive) in the project folder with its own HIVE_HOME; echo it to stderr."""
    env = {**os.environ, "HIVE_HOME": str(home)}
    command = [sys.executable, "-m", "hive_cli", *args]
    print(f"$ hive {' '.join(args)}", file=sys.stderr)
    try:
        done = subprocess.run(
            command, cwd=project, env=env, capture_output=True, text=True, timeout=STEP_TIMEOUT, check=False
        )
    except subprocess.TimeoutExpired:
        print(f"(no answer within {STEP_TIMEOUT} s)", file=sys.stderr)
        return subprocess.CompletedProcess(command, TIMED_OUT, "", "")
    sys.stderr.write(done.stdout + done.stderr)
    print(f"(exit {done.returncode})", file=sys.stderr)
    return done


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
