"""What the seed's peer loop for thinking models does, done by hive's one loop (docs/architecture.md,
"Thinking models in the one loop"): the reasoning phase streams before the answer and apart from it, the
effort asked reaches the wire, the reasoning is recorded per turn and counted, and it is kept out of the answer.
(Sending it back with its tool round, where a protocol wants that, is the clients' part: see the table.)
Real loop, real client, the scripted server over HTTP."""

from __future__ import annotations

from pathlib import Path

from engine.events import ReasoningDelta, TextDelta, TurnCompleted
from engine.model.types import CallOptions
from engine.run.loop import AgentLoop, LoopOptions, ToolEnvironment
from engine.tools.builtin import builtin_tools
from engine.tools.registry import ToolRegistry
from tests.support.agents import client_for, run_events
from tests.support.llm_server import LLMServer, Usage, call, text, tool_calls

THOUGHT = "The file list will tell me; list it first."


def test_reasoning_streams_first_is_recorded_apart_counted_and_sent_back_with_its_round(
    llm_server: LLMServer, tmp_path: Path
) -> None:
    (tmp_path / "notes.txt").write_text("hello\n")
    llm_server.script(
        tool_calls(call("list_directory", {"path": "."}), reasoning=THOUGHT, usage=Usage(reasoning_tokens=11)),
        text("One file: notes.txt.", reasoning="It holds notes.txt.", usage=Usage(reasoning_tokens=5)),
    )
    loop = AgentLoop(
        client=client_for(llm_server, direct=True),
        toolset=ToolRegistry(builtin_tools()),
        environment=ToolEnvironment(cwd=tmp_path, data_dir=tmp_path / ".hive"),
        options=LoopOptions(call_options=CallOptions(reasoning_effort="high")),
    )

    events, result = run_events(loop, "what is here?")

    streamed = [e for e in events if isinstance(e, ReasoningDelta | TextDelta)]
    first_text = next(i for i, e in enumerate(streamed) if isinstance(e, TextDelta))
    assert "".join(e.text for e in streamed[:first_text] if isinstance(e, ReasoningDelta)).endswith("notes.txt.")
    turns = [e.turn for e in events if isinstance(e, TurnCompleted)]
    assert [t.reasoning for t in turns] == [THOUGHT, "It holds notes.txt."]
    assert result.text == "One file: notes.txt." and THOUGHT not in result.text
    assert result.usage.reasoning_tokens == 16
    assert all(request.json.get("reasoning_effort") == "high" for request in llm_server.chat_requests)
    # An OpenAI-compatible chat server takes no reasoning back (DeepSeek refuses it): only the tool round goes.
    sent_back = llm_server.chat_requests[1].messages[-2]
    assert sent_back["role"] == "assistant" and "reasoning_content" not in sent_back and sent_back["tool_calls"]
