"""One tool budget for every request (#42): hundreds of agents reach the model through retrieval, the
request stays within the provider's limit, and the agent that fits the task is offered and runs
(the real `hive run` against the scripted model server, which records each request's tools)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from engine.paths import user_config_dir
from engine.retrieval.tool_cap import PROVIDER_TOOL_LIMIT, ToolCap
from engine.tools.base import ToolSpec
from engine.tools.registry import ToolRegistry
from tests.support.cli import run_hive
from tests.support.llm_server import LLMServer, call, text, tool_calls

AGENTS = 300
TOPICS = ["billing", "invoices", "metrics", "kubernetes", "terraform", "translations", "fonts", "audio", "maps", "pdf"]


def write_agents() -> None:
    folder = user_config_dir() / "agents"
    folder.mkdir(parents=True, exist_ok=True)
    for index in range(AGENTS - 1):
        topic = TOPICS[index % len(TOPICS)]
        name = f"{topic}-helper-{index}"
        (folder / f"{name}.md").write_text(
            f"---\nname: {name}\ndescription: Answers questions about {topic} number {index}.\n---\n"
            f"You know {topic} well.\n"
        )
    (folder / "changelog-writer.md").write_text(
        "---\nname: changelog-writer\ndescription: Writes the changelog entry for a release.\n---\n"
        "You write changelog entries.\n"
    )


def offered(request: Any) -> list[str]:
    return [tool["function"]["name"] for tool in request.json.get("tools", [])]


def test_three_hundred_agents_are_narrowed_to_those_that_fit_and_the_fitting_one_runs(
    llm_server: LLMServer, tmp_path: Path
) -> None:
    write_agents()
    llm_server.script(
        tool_calls(call("agent_changelog-writer", {"task": "Write the changelog entry for 2.1."})),
        text("## 2.1\n- Faster starts."),  # the sub-agent's answer
        text("The changelog entry is written."),
    )
    done = run_hive(
        "run", "write the changelog entry for the release", "-o", "json",
        "--model", "openai/test-model", "--api-base", llm_server.base_url, "--api-key", "sk-test", "-C", str(tmp_path),
    )  # fmt: skip

    assert done.returncode == 0, done.stderr
    first = offered(llm_server.chat_requests[0])
    agents = [name for name in first if name.startswith("agent_")]
    assert "agent_changelog-writer" in agents and "agent_explore" in agents
    assert len(agents) <= 40 < AGENTS and len(first) <= PROVIDER_TOOL_LIMIT
    assert json.loads(done.stdout)["text"].endswith("The changelog entry is written.")
    child = llm_server.chat_requests[1].messages
    assert child[-1] == {"role": "user", "content": "Write the changelog entry for 2.1."}


def test_a_request_never_carries_more_tools_than_the_provider_accepts() -> None:
    builtin = [ToolSpec(name=f"tool_{n}", description="", parameters={}) for n in range(5)]
    servers = [ToolSpec(name=f"mcp__s__t{n}", description="", parameters={}, kind="mcp") for n in range(3000)]
    registry = ToolRegistry(declared=[*servers, *builtin])

    names = [spec.name for spec in ToolCap(registry, PROVIDER_TOOL_LIMIT).specs()]

    assert len(names) == PROVIDER_TOOL_LIMIT
    assert [n for n in names if n.startswith("tool_")] == [f"tool_{n}" for n in range(5)]
    assert [n for n in names if n.startswith("mcp__")] == [f"mcp__s__t{n}" for n in range(PROVIDER_TOOL_LIMIT - 5)]
