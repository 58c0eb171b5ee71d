"""The sandbox inside a session: on by default, every command asked when it cannot start, one way out."""

from __future__ import annotations

import asyncio
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest
from msgspec.structs import replace

from engine.agent import build_agent
from engine.config.loader import Overrides, SessionConfig, load_config
from engine.errors import ConfigError
from engine.events import ApprovalRequested, RunFinished
from engine.paths import user_config_dir
from engine.policy.gate import ApprovalRequest, ApproveEverything, Decision
from engine.sandbox.status import SandboxStatus
from tests.support.agents import collect
from tests.support.llm_server import LLMServer, call, text, tool_calls


class Person:
    """Answers yes to everything, as a person at the terminal would, and keeps the questions."""

    def __init__(self) -> None:
        self.requests: list[ApprovalRequest] = []

    async def decide(self, request: ApprovalRequest) -> Decision:
        self.requests.append(request)
        return Decision(allowed=True)


@pytest.fixture
def away() -> Iterator[Path]:
    """A folder outside the project and outside /tmp (which the sandbox replaces with its own)."""
    folder = Path(tempfile.mkdtemp(prefix="hive-away-", dir="/var/tmp")).resolve()
    yield folder
    shutil.rmtree(folder, ignore_errors=True)


def config_for(server: LLMServer, cwd: Path, **overrides: object) -> SessionConfig:
    flags = Overrides(model="openai/test-model", api_base=server.base_url, api_key="sk-test", **overrides)  # type: ignore[arg-type]
    return load_config(cwd, flags, persist=False)


def run(config: SessionConfig, approver: object, cwd: Path) -> list[object]:
    agent = build_agent(config, approver=approver, data_dir=cwd / ".out")  # type: ignore[arg-type]
    return asyncio.run(collect(agent.loop.run_streaming("go")))


def outputs(events: list[object]) -> list[str]:
    final = events[-1]
    assert isinstance(final, RunFinished)
    return [o.output for o in final.result.tool_outcomes]


def test_commands_run_confined_by_default(llm_server: LLMServer, tmp_path: Path, away: Path) -> None:
    config = config_for(llm_server, tmp_path)
    assert config.sandbox.confined and config.permissions.sandboxed
    llm_server.script(tool_calls(call("execute_command", {"command": f"touch {away}/x; touch made.txt"})), text("ok"))
    run(config, ApproveEverything(), tmp_path)
    assert (tmp_path / "made.txt").exists() and not (away / "x").exists()


def test_a_person_may_run_a_blocked_command_once_outside_and_nobody_else_can(
    llm_server: LLMServer, tmp_path: Path, away: Path
) -> None:
    command = f"touch {away}/made"
    llm_server.script(tool_calls(call("execute_command", {"command": command})), text("ok"))
    person = Person()
    events = run(config_for(llm_server, tmp_path), person, tmp_path)
    assert (away / "made").exists()
    assert len(person.requests) == 2  # outside the project: asked; blocked in the sandbox: offered to run outside
    assert "OUTSIDE the sandbox" in person.requests[1].reason and person.requests[1].remember is None
    assert outputs(events)[0].startswith("[Run again outside the sandbox, as the user allowed once.]")
    assert sum(isinstance(e, ApprovalRequested) for e in events) == 2

    (away / "made").unlink()
    llm_server.script(tool_calls(call("execute_command", {"command": command})), text("ok"))
    events = run(config_for(llm_server, tmp_path), ApproveEverything(), tmp_path)  # --yes is not a person
    assert not (away / "made").exists()
    assert "The sandbox may have blocked this" in outputs(events)[0]


def test_a_refused_unix_socket_is_offered_to_a_person_as_well(llm_server: LLMServer, tmp_path: Path) -> None:
    command = "python3 -c 'import socket; socket.socket(socket.AF_UNIX).close()'"
    llm_server.script(tool_calls(call("execute_command", {"command": command})), text("ok"))
    person = Person()
    events = run(config_for(llm_server, tmp_path), person, tmp_path)
    assert "looks like it needed a unix socket" in person.requests[-1].reason
    assert outputs(events)[0].startswith("[Run again outside the sandbox, as the user allowed once.]")


def test_when_the_sandbox_cannot_start_every_command_asks_and_the_session_says_so(
    llm_server: LLMServer, tmp_path: Path
) -> None:
    config = config_for(llm_server, tmp_path)
    broken = SandboxStatus(options=config.sandbox.options, problem="user namespaces are disabled")
    config = replace(config, sandbox=broken)
    assert broken.failed and "cannot start here: user namespaces are disabled" in (broken.notice() or "")
    llm_server.script(tool_calls(call("execute_command", {"command": "git status"})), text("ok"))
    person = Person()
    events = run(config, person, tmp_path)
    assert len(person.requests) == 1 and "would run unconfined" in person.requests[0].reason
    llm_server.script(tool_calls(call("execute_command", {"command": "git status"})), text("ok"))
    refused = outputs(run(config, None, tmp_path))[0]
    assert "not run" in refused and "sandbox cannot start" in refused
    assert outputs(events)[0]  # with the person's yes it ran


def test_sandbox_off_is_the_explicit_way_out(llm_server: LLMServer, tmp_path: Path, away: Path) -> None:
    config = config_for(llm_server, tmp_path, sandbox="off")
    assert not config.sandbox.confined and not config.sandbox.failed and not config.permissions.sandboxed
    llm_server.script(tool_calls(call("execute_command", {"command": f"touch {away}/x"})), text("ok"))
    run(config, ApproveEverything(), tmp_path)
    assert (away / "x").exists()


def test_the_sandbox_section_of_the_settings_and_the_flag(llm_server: LLMServer, tmp_path: Path) -> None:
    settings = user_config_dir() / "settings.yaml"
    settings.parent.mkdir(parents=True)
    settings.write_text("sandbox:\n  mode: read-only\n  network: true\n  writable_roots: [build]\n")
    config = config_for(llm_server, tmp_path)
    options = config.sandbox.options
    assert (options.mode, options.network, options.writable_roots) == ("read-only", True, ((tmp_path / "build"),))
    assert config_for(llm_server, tmp_path, sandbox="workspace-write").sandbox.mode == "workspace-write"
    settings.write_text("sandbox: off\n")
    assert config_for(llm_server, tmp_path).sandbox.mode == "off"


def test_the_projects_settings_may_tighten_the_sandbox_but_never_loosen_it(
    llm_server: LLMServer, tmp_path: Path
) -> None:
    project = tmp_path / "clone"
    (project / ".ironhive").mkdir(parents=True)
    settings = project / ".ironhive" / "settings.yaml"
    settings.write_text("sandbox:\n  mode: off\n  network: true\n  writable_roots: ['/', build]\n")

    status = config_for(llm_server, project).sandbox

    assert (status.mode, status.options.network, status.options.writable_roots) == (
        "workspace-write",
        False,
        (project / "build",),  # inside the project: nothing outside it
    )
    assert status.refused == ("mode off", "network: true", "writable root /")
    assert "only your own settings or --sandbox can" in str(status.notice())
    settings.write_text("sandbox: read-only\n")
    assert config_for(llm_server, project).sandbox.mode == "read-only"  # tighter: taken
    user = user_config_dir() / "settings.yaml"
    user.parent.mkdir(parents=True)
    user.write_text("sandbox:\n  mode: off\n  network: true\n")
    settings.write_text("sandbox:\n  network: false\n")
    loosened_by_the_user = config_for(llm_server, project).sandbox
    assert (loosened_by_the_user.mode, loosened_by_the_user.options.network) == ("off", False)
    assert loosened_by_the_user.refused == ()


def test_user_settings_show_read_paths_and_pass_variables_and_a_bad_name_is_a_config_error(
    llm_server: LLMServer, tmp_path: Path
) -> None:
    settings = user_config_dir() / "settings.yaml"
    settings.parent.mkdir(parents=True)
    settings.write_text("sandbox:\n  read_paths: ['~/bin', /opt/tools]\n  env: [DEPLOY_TARGET]\n")
    options = config_for(llm_server, tmp_path).sandbox.options
    assert options.read_paths == (Path.home() / "bin", Path("/opt/tools")) and options.env == ("DEPLOY_TARGET",)
    settings.write_text("sandbox:\n  env: ['NOT A NAME']\n")
    with pytest.raises(ConfigError, match="env"):
        config_for(llm_server, tmp_path)


def test_a_command_where_the_walk_stopped_early_is_asked_with_the_reason(llm_server: LLMServer, tmp_path: Path) -> None:
    deep = tmp_path.joinpath(*[f"d{level}" for level in range(14)])
    deep.mkdir(parents=True)
    (deep / ".env").write_text("TOKEN=deep\n")
    llm_server.script(tool_calls(call("execute_command", {"command": "git status"})), text("ok"))
    person = Person()
    run(config_for(llm_server, tmp_path), person, tmp_path)
    assert len(person.requests) == 1
    assert "walk of" in person.requests[0].reason and "stopped at 12 levels deep" in person.requests[0].reason
    assert person.requests[0].lasting == ()  # saving an allow would not lift it

    llm_server.script(tool_calls(call("execute_command", {"command": "git status"})), text("ok"))
    off = Person()
    run(config_for(llm_server, tmp_path, sandbox="off"), off, tmp_path)
    assert not any("walk" in request.reason for request in off.requests)  # nothing is hidden, nothing pretended
