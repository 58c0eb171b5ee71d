"""Which MCP servers a project configures: plugins.yaml (user and project), .mcp.json, and their errors."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from engine.config.loader import Overrides, load_config
from engine.errors import ConfigError
from engine.mcp.approvals import approve
from engine.mcp.config import load_servers
from engine.mcp.options import McpOptions
from engine.paths import user_config_dir
from tests.support.mcp_servers import ROOT


def project(tmp_path: Path, plugins: str | None = None, mcp_json: object = None) -> Path:
    (tmp_path / ".ironhive").mkdir(exist_ok=True)
    if plugins is not None:
        (tmp_path / ".ironhive" / "plugins.yaml").write_text(plugins)
    if mcp_json is not None:
        text = mcp_json if isinstance(mcp_json, str) else json.dumps(mcp_json)
        (tmp_path / ".mcp.json").write_text(text)
    return tmp_path


def test_a_plugins_file_gives_each_server_its_transport_defaults_and_source(tmp_path: Path) -> None:
    root = project(
        tmp_path,
        "plugins:\n"
        "  local:\n    command: my-server\n    args: [--port, 3]\n    tool_timeout: 5\n"
        "  docs:\n    transport: HTTP\n    url: http://127.0.0.1:9/mcp\n    headers: {X-Key: abc}\n"
        "  old:\n    transport: Sse\n    url: http://127.0.0.1:9/sse\n    enabled: false\n",
    )
    found = load_servers(root, McpOptions(startup_timeout=7, tool_timeout=50))

    by_name = {s.name: s for s in found.servers}
    local, docs, old = by_name["local"], by_name["docs"], by_name["old"]
    assert (local.transport, local.command, local.args, local.cwd) == ("stdio", "my-server", ("--port", "3"), root)
    assert (local.startup_timeout, local.tool_timeout) == (7, 5)
    assert (docs.transport, docs.url, dict(docs.headers), docs.cwd) == (
        "http",
        "http://127.0.0.1:9/mcp",
        {"X-Key": "abc"},
        None,
    )
    assert old.transport == "sse" and not old.enabled
    assert [s.name for s in found.enabled] == ["local", "docs"]
    assert {s.source for s in found.servers} == {root / ".ironhive" / "plugins.yaml"}


def test_variables_are_expanded_and_an_unset_one_makes_only_that_server_unusable(tmp_path: Path) -> None:
    user_config_dir().mkdir(parents=True, exist_ok=True)
    (user_config_dir() / "plugins.yaml").write_text(
        "plugins:\n"
        "  a:\n    command: srv\n    env: {TOKEN: '${MY_TOKEN}', MODE: '${MY_MODE:-fast}'}\n"
        "  b:\n    transport: http\n    url: 'http://127.0.0.1:9/${MISSING_PATH}'\n",
    )
    found = load_servers(tmp_path, environ={"MY_TOKEN": "s3cret"})

    a, b = found.servers
    assert dict(a.env) == {"TOKEN": "s3cret", "MODE": "fast"} and not a.problem and not a.withheld
    assert b.problem is not None and "MISSING_PATH" in b.problem and not b.awaiting_approval
    assert "s3cret" not in repr(a)


def test_a_project_entry_gets_only_the_variables_allowed_for_it(tmp_path: Path) -> None:
    root = project(
        tmp_path,
        "plugins:\n"
        "  a:\n    command: srv\n    args: ['${MY_TOKEN}']\n    env: {TOKEN: '${MY_TOKEN}', MODE: '${MY_MODE:-fast}'}\n",
    )
    environ = {"MY_TOKEN": "s3cret", "MY_MODE": "slow"}
    waiting = load_servers(root, environ=environ).servers[0]
    approve(root, [waiting])

    withheld = load_servers(root, environ=environ)
    approve(root, [waiting], allow={"a": ["MY_TOKEN"]})
    allowed = load_servers(root, environ=environ).servers[0]

    assert waiting.awaiting_approval and waiting.withheld == ("MY_MODE", "MY_TOKEN")
    a = withheld.servers[0]
    assert not a.problem and a.args == ("",) and dict(a.env) == {"TOKEN": "", "MODE": "fast"}
    assert [n for n in withheld.notices if "wants" in n] == [
        "MCP server a (plugins.yaml) wants $MY_MODE, $MY_TOKEN; it is not passed to a project's server unless you"
        " allow it: hive mcp approve a --env MY_MODE --env MY_TOKEN"
    ]
    assert not allowed.problem and allowed.args == ("s3cret",) and allowed.withheld == ("MY_MODE",)
    assert dict(allowed.env) == {"TOKEN": "s3cret", "MODE": "fast"}
    assert "s3cret" not in repr(allowed)


@pytest.mark.parametrize(
    "variable", ["NODE_OPTIONS", "LD_PRELOAD", "PYTHONPATH", "BASH_ENV", "npm_config_registry", "PATH"]
)
def test_a_project_entry_that_sets_a_loader_variable_is_refused(tmp_path: Path, variable: str) -> None:
    entry = f"plugins:\n  a:\n    command: srv\n    env: {{{variable}: x, PYTHONUNBUFFERED: '1'}}\n"
    (user_config_dir()).mkdir(parents=True, exist_ok=True)
    (user_config_dir() / "plugins.yaml").write_text(entry.replace("  a:", "  mine:"))
    root = project(tmp_path, entry)

    found = {s.name: s for s in load_servers(root).servers}

    assert found["a"].problem is not None and not found["a"].awaiting_approval
    assert f"sets {variable} in its environment, which decides what code it loads" in found["a"].problem
    assert found["mine"].problem is None  # the person's own entry may set it


@pytest.mark.parametrize(
    ("text", "where", "says"),
    [
        ("plugins:\n  a:\n    comand: srv\n", ":3: plugins.a.comand", "unknown key"),
        ("plugins:\n  a:\n    transport: ftp\n    command: srv\n", ":3: plugins.a.transport", "stdio"),
        ("plugins:\n  a:\n    transport: http\n", ":2: plugins.a", "needs a 'url'"),
        ("plugins:\n  a:\n    args: [x]\n", ":2: plugins.a", "needs a 'command'"),
        ("plugins:\n  a__b:\n    command: srv\n", ":1: plugins", "single '_'"),
        (
            "plugins:\n  a:\n    command: srv\n    startup_timeout: -1\n",
            ":4: plugins.a.startup_timeout",
            "should be a number > 0",
        ),
        ("plugins: [a, b]\n", ":1: plugins", "mapping"),
        ("plugins:\n  a: {command: [srv\n", ":", "invalid YAML"),
    ],
)
def test_a_broken_plugins_file_is_one_message_naming_the_file_line_and_key(
    tmp_path: Path, text: str, where: str, says: str
) -> None:
    root = project(tmp_path, text)

    with pytest.raises(ConfigError) as caught:
        load_servers(root)

    message = str(caught.value)
    assert str(root / ".ironhive" / "plugins.yaml") + where in message and says in message
    assert "Traceback" not in message and "pydantic" not in message


def test_the_project_file_beats_mcp_json_which_beats_the_users_file(tmp_path: Path) -> None:
    user = user_config_dir()
    user.mkdir(parents=True)
    (user / "plugins.yaml").write_text(
        "plugins:\n  a: {command: from-user}\n  b: {command: from-user}\n  u: {command: u}\n"
    )
    root = project(
        tmp_path,
        "plugins:\n  a: {command: from-project}\n",
        {"mcpServers": {"a": {"command": "from-json"}, "b": {"command": "from-json"}}},
    )
    found = load_servers(root)

    commands = {s.name: (s.command, s.source.name) for s in found.servers}
    assert commands == {
        "a": ("from-project", "plugins.yaml"),
        "b": ("from-json", ".mcp.json"),
        "u": ("u", "plugins.yaml"),
    }
    assert found.sources == (user / "plugins.yaml", root / ".mcp.json", root / ".ironhive" / "plugins.yaml")


def test_mcp_json_is_read_leniently_and_says_what_it_skipped(tmp_path: Path) -> None:
    root = project(
        tmp_path,
        mcp_json={
            "mcpServers": {
                "fs": {"command": "npx", "args": ["-y", "fs"], "env": {"K": "v"}, "alwaysAllow": ["x"]},
                "web": {"type": "http", "url": "http://127.0.0.1:9/mcp", "headers": {"A": "b"}},
                "stream": {"type": "sse", "url": "http://127.0.0.1:9/sse"},
                "empty": {},
                "odd": {"type": "websocket", "url": "ws://x"},
            },
            "other": 1,
        },
    )
    found = load_servers(root)

    assert [(s.name, s.transport) for s in found.servers] == [("fs", "stdio"), ("web", "http"), ("stream", "sse")]
    assert found.servers[0].args == ("-y", "fs") and dict(found.servers[1].headers) == {"A": "b"}
    assert len(found.notices) == 2
    assert all(str(root / ".mcp.json") in n for n in found.notices)
    assert any("'empty'" in n for n in found.notices) and any("'odd'" in n for n in found.notices)


def test_an_mcp_json_that_is_not_json_is_a_notice_not_an_error(tmp_path: Path) -> None:
    root = project(tmp_path, mcp_json="{not json")

    found = load_servers(root)

    assert found.servers == () and "invalid JSON" in found.notices[0]


def test_load_config_reads_the_servers_and_a_broken_file_stops_it(tmp_path: Path) -> None:
    root = project(tmp_path, "plugins:\n  a: {command: srv}\n")
    config = load_config(root, Overrides(model="openai/test"), persist=False)
    assert [s.name for s in config.mcp_servers.servers] == ["a"]

    (root / ".ironhive" / "plugins.yaml").write_text("plugins:\n  a: {cmd: srv}\n")
    with pytest.raises(ConfigError, match="plugins.a.cmd"):
        load_config(root, Overrides(model="openai/test"), persist=False)


def test_the_repositorys_own_plugins_file_parses_with_an_entry_per_transport() -> None:
    found = load_servers(ROOT, environ={})

    transports = {s.transport for s in found.servers if s.source == ROOT / ".ironhive" / "plugins.yaml"}
    assert transports == {"stdio", "http", "sse"}
