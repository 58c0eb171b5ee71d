"""The repository map through the real ``hive run``: the tool, its place in plan mode, the first-request section,
and the read rules keeping a denied file out of both (the scripted model server records what hive sends)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from engine.paths import user_cache_dir, user_config_dir
from tests.support.cli import run_hive
from tests.support.llm_server import LLMServer, call, text, tool_calls
from tests.support.repo_map_fixture import SECRET_DEFINITION, write_project

SECTION = "# Repository map"
DENY_VAULT = "permissions:\n  include_defaults: true\n  read:\n    - {pattern: 'vault/**', action: deny}\n"


def run_task(server: LLMServer, workdir: Path, *extra: str) -> dict[str, Any]:
    done = run_hive(
        "run", "where are orders kept?", "-o", "json", *extra,
        "--model", "openai/test-model", "--api-base", server.base_url, "--api-key", "sk-test", "-C", str(workdir),
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    result: dict[str, Any] = json.loads(done.stdout)
    return result


def user_settings(text: str) -> None:
    config = user_config_dir()
    config.mkdir(parents=True, exist_ok=True)
    (config / "settings.yaml").write_text(text)


def deny_vault(project: Path) -> None:
    (project / ".ironhive").mkdir()
    (project / ".ironhive" / "permissions.yaml").write_text(DENY_VAULT)


def system_prompt(server: LLMServer) -> str:
    first = server.chat_requests[0].messages[0]
    assert first["role"] == "system"
    return str(first["content"])


def tool_names(server: LLMServer) -> list[str]:
    return [tool["function"]["name"] for tool in server.chat_requests[0].json.get("tools", [])]


def test_the_model_maps_the_repository_with_the_tool(llm_server: LLMServer, tmp_path: Path) -> None:
    project = write_project(tmp_path / "project")
    llm_server.script(tool_calls(call("repo_map", {})), text("OrderBook, in store/models.py."))

    result = run_task(llm_server, project)

    (used,) = result["tool_calls"]
    assert used["name"] == "repo_map" and used["success"] is True
    sent = llm_server.chat_requests[1].messages[-1]
    assert sent["role"] == "tool"
    lines = sent["content"].splitlines()
    assert lines[:2] == ["store/models.py:", "  1: class OrderBook:"]
    assert "service/server.go:" in lines and "web/api.ts:" in lines


def test_plan_mode_offers_the_tool_and_a_subfolder_is_mapped_with_paths_from_the_working_directory(
    llm_server: LLMServer, tmp_path: Path
) -> None:
    project = write_project(tmp_path / "project")
    llm_server.script(tool_calls(call("repo_map", {"path": "web"})), text("Quotes are in web/."))

    run_task(llm_server, project, "--mode", "plan")

    assert "repo_map" in tool_names(llm_server) and "write_file" not in tool_names(llm_server)
    mapped = llm_server.chat_requests[1].messages[-1]["content"]
    assert "web/api.ts:" in mapped and "web/view.js:" in mapped and "store/models.py" not in mapped


def test_a_file_the_rules_deny_is_not_in_the_tool_s_map(llm_server: LLMServer, tmp_path: Path) -> None:
    project = write_project(tmp_path / "project", secret=True)
    deny_vault(project)
    llm_server.script(tool_calls(call("repo_map", {})), text("Done."))

    run_task(llm_server, project)

    mapped = llm_server.chat_requests[1].messages[-1]["content"]
    assert "class OrderBook" in mapped
    assert SECRET_DEFINITION not in mapped and "vault/" not in mapped.split("\n(")[0]
    assert "left out" in mapped


def test_the_first_request_carries_the_map_when_the_settings_turn_it_on(llm_server: LLMServer, tmp_path: Path) -> None:
    project = write_project(tmp_path / "project", secret=True)
    deny_vault(project)
    user_settings("repo_map:\n  in_first_request: true\n  budget_tokens: 256\n")
    llm_server.script(text("I see the map."))

    run_task(llm_server, project)

    prompt = system_prompt(llm_server)
    section = prompt[prompt.index(SECTION) :]
    assert "store/models.py:\n  1: class OrderBook:" in section
    assert SECRET_DEFINITION not in prompt


def test_by_default_a_large_window_gets_the_map_kept_between_sessions_until_a_file_changes(
    llm_server: LLMServer, tmp_path: Path
) -> None:
    project = write_project(tmp_path / "project")
    user_settings("context:\n  context_window: 128000\n")
    llm_server.script(text("Map."), text("The same map."), text("A new map."))
    kept = user_cache_dir() / "repomap"

    run_task(llm_server, project)
    (tags,) = kept.glob("tags-*.msgpack")
    tags.unlink()  # a session that builds the map writes the files' tags again; one that reuses the map does not
    run_task(llm_server, project)
    reused = not tags.exists()
    with (project / "store" / "models.py").open("a") as models:
        models.write("\n\ndef archive_orders(book):\n    return book\n")
    run_task(llm_server, project)

    first, second, third = (str(request.messages[0]["content"]) for request in llm_server.chat_requests)
    assert SECTION in first and "store/models.py:\n  1: class OrderBook:" in first
    assert second == first and reused
    assert tags.exists() and "archive_orders" in third and "archive_orders" not in first


def test_a_kept_map_is_not_reused_once_the_rules_deny_a_file_it_showed(llm_server: LLMServer, tmp_path: Path) -> None:
    project = write_project(tmp_path / "project", secret=True)
    user_settings("repo_map:\n  in_first_request: true\n")
    llm_server.script(text("Map."), text("Map without the vault."))

    run_task(llm_server, project)
    deny_vault(project)
    run_task(llm_server, project)

    assert SECRET_DEFINITION in str(llm_server.chat_requests[0].messages[0]["content"])
    assert SECRET_DEFINITION not in str(llm_server.chat_requests[1].messages[0]["content"])


def test_auto_leaves_the_map_out_for_a_model_of_unknown_window(llm_server: LLMServer, tmp_path: Path) -> None:
    project = write_project(tmp_path / "project")
    user_settings("repo_map:\n  in_first_request: auto\n")
    llm_server.script(text("No map."))

    run_task(llm_server, project)

    assert SECTION not in system_prompt(llm_server)


def test_auto_with_a_large_known_window_turns_the_map_on_and_false_turns_it_off(
    llm_server: LLMServer, tmp_path: Path
) -> None:
    project = write_project(tmp_path / "project")
    user_settings("context:\n  context_window: 128000\nrepo_map:\n  in_first_request: auto\n")
    llm_server.script(text("Map."), text("No map."))

    run_task(llm_server, project)
    user_settings("context:\n  context_window: 128000\nrepo_map:\n  in_first_request: false\n")
    run_task(llm_server, project)

    assert SECTION in str(llm_server.chat_requests[0].messages[0]["content"])
    assert SECTION not in str(llm_server.chat_requests[1].messages[0]["content"])


def test_outside_a_repository_the_first_request_has_no_map(llm_server: LLMServer, tmp_path: Path) -> None:
    project = write_project(tmp_path / "project", git=False)
    user_settings("repo_map:\n  in_first_request: true\n")
    llm_server.script(text("No repository."))

    run_task(llm_server, project)

    assert SECTION not in system_prompt(llm_server)
