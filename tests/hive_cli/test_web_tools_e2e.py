"""web_fetch and web_search through `hive run`: the real program, the scripted model and the suite's page server."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.support.cli import run_hive
from tests.support.llm_server import LLMServer, call, text, tool_calls
from tests.support.search_server import Result, SearchServer
from tests.support.trust import trust

ALLOW_LOCAL = "research:\n  allow_private_urls: true\n"


@pytest.fixture
def pages() -> Iterator[SearchServer]:
    with SearchServer() as server:
        server.results = [Result("Solar sails", server.page_url("solar-sails.html"), "record speed")]
        yield server


def model_args(server: LLMServer, workdir: Path) -> list[str]:
    return ["--model", "openai/test-model", "--api-base", server.base_url, "--api-key", "sk-test", "-C", str(workdir)]


def user_settings(text_: str) -> None:
    import os

    config = Path(os.environ["HIVE_HOME"]) / "config"
    config.mkdir(parents=True, exist_ok=True)
    (config / "settings.yaml").write_text(text_)


def project_rules(workdir: Path, tools: str) -> None:
    (workdir / ".ironhive").mkdir(exist_ok=True)
    (workdir / ".ironhive" / "permissions.yaml").write_text(
        f"permissions:\n  include_defaults: true\n  tools:\n{tools}"
    )


def outcomes(stdout: str) -> dict[str, Any]:
    return {c["call_id"]: c for c in json.loads(stdout)["tool_calls"]}


def test_a_fetch_allowed_by_a_trusted_rule_reaches_the_model_and_the_log_shows_url_and_size(
    llm_server: LLMServer, tmp_path: Path, pages: SearchServer
) -> None:
    url = pages.page_url("solar-sails.html")
    user_settings(ALLOW_LOCAL)
    project_rules(tmp_path, "    - {pattern: 'web_fetch: 127.0.0.1', action: allow}\n")
    trust(tmp_path)
    llm_server.script(tool_calls(call("web_fetch", {"url": url}, id="f")), text("Read it."))

    done = run_hive("run", "read the page", *model_args(llm_server, tmp_path))

    assert done.returncode == 0, done.stderr
    assert f"→ web_fetch {url}" in done.stderr
    size = (Path(__file__).parents[1] / "fixtures" / "research_pages" / "solar-sails.html").stat().st_size
    assert "✓ web_fetch (" in done.stderr and f", {size / 1000:.1f} KB)" in done.stderr
    sent = llm_server.chat_requests[1].messages[-1]
    assert sent["role"] == "tool" and "Lumen-2 light sail probe" in sent["content"]
    assert "<untrusted_web_content" in sent["content"]


def test_without_a_person_the_first_fetch_of_a_domain_is_refused(
    llm_server: LLMServer, tmp_path: Path, pages: SearchServer
) -> None:
    user_settings(ALLOW_LOCAL)
    llm_server.script(tool_calls(call("web_fetch", {"url": pages.page_url("sourdough.html")}, id="f")), text("ok"))

    done = run_hive("run", "read", "-o", "json", *model_args(llm_server, tmp_path))

    assert done.returncode == 0, done.stderr
    assert "nobody to approve" in outcomes(done.stdout)["f"]["output"]
    assert pages.requests == []


def test_an_untrusted_projects_allow_rule_does_not_open_a_domain_but_trust_does(
    llm_server: LLMServer, tmp_path: Path, pages: SearchServer
) -> None:
    user_settings(ALLOW_LOCAL)
    project_rules(tmp_path, "    - {pattern: 'web_fetch: *', action: allow}\n")
    fetch = tool_calls(call("web_fetch", {"url": pages.page_url("sourdough.html")}, id="f"))
    llm_server.script(fetch, text("refused"), fetch, text("read"))

    untrusted = run_hive("run", "read", "-o", "json", *model_args(llm_server, tmp_path))
    trust(tmp_path)
    trusted = run_hive("run", "read", "-o", "json", *model_args(llm_server, tmp_path))

    assert "nobody to approve" in outcomes(untrusted.stdout)["f"]["output"]
    assert outcomes(trusted.stdout)["f"]["success"] is True
    assert len([r for r in pages.requests if r.path.endswith("sourdough.html")]) == 1


def test_an_untrusted_projects_setting_does_not_open_private_addresses(
    llm_server: LLMServer, tmp_path: Path, pages: SearchServer
) -> None:
    (tmp_path / ".ironhive").mkdir()
    (tmp_path / ".ironhive" / "settings.yaml").write_text(ALLOW_LOCAL)
    llm_server.script(tool_calls(call("web_fetch", {"url": pages.page_url("sourdough.html")}, id="f")), text("ok"))

    done = run_hive("run", "read", "--yes", "-o", "json", *model_args(llm_server, tmp_path))

    assert "is a private or local address" in outcomes(done.stdout)["f"]["output"]
    assert pages.requests == []


def test_web_search_answers_through_the_configured_provider(
    llm_server: LLMServer, tmp_path: Path, pages: SearchServer
) -> None:
    llm_server.script(tool_calls(call("web_search", {"query": "solar sails"}, id="s")), text("found"))

    done = run_hive(
        "run", "search", "--yes", "-o", "json", *model_args(llm_server, tmp_path), SEARXNG_URL=pages.searxng_url
    )

    result = outcomes(done.stdout)["s"]
    assert result["success"] is True, result
    assert f"1. Solar sails\n   {pages.page_url('solar-sails.html')}" in result["output"]


def test_plan_mode_offers_both_web_tools(llm_server: LLMServer, tmp_path: Path) -> None:
    llm_server.script(text("a plan"))
    done = run_hive("run", "plan it", "--mode", "plan", *model_args(llm_server, tmp_path))
    assert done.returncode == 0, done.stderr
    offered = {tool["function"]["name"] for tool in llm_server.chat_requests[0].json["tools"]}
    assert {"web_fetch", "web_search"} <= offered and "write_file" not in offered
