"""`/research` in the REPL: progress inline, the report shown, and the report in the conversation afterwards."""

from __future__ import annotations

from pathlib import Path

from tests.support.llm_server import LLMServer
from tests.support.research_model import FIXTURE_DOCS, ResearchScript
from tests.support.terminal import PROMPT, leave_repl, send_line, spawn_repl

REPORT = "The Tessel Glacier has retreated 1.8 kilometres since 1962 [1]."


def test_research_report_joins_the_conversation_for_the_follow_up(llm_server: LLMServer, tmp_path: Path) -> None:
    ResearchScript(
        judges=['{"score": 0.9, "gaps": []}'], report=REPORT, chat="It retreated 1.8 km, as the report says."
    ).install(llm_server)
    child = spawn_repl(llm_server, tmp_path)
    send_line(child, f"/research --docs {FIXTURE_DOCS} --depth quick How fast is the Tessel Glacier retreating?")
    child.expect("read \\[1\\]")
    child.expect("retreated 1.8 kilometres")
    child.expect("research sufficient")
    child.expect(PROMPT)
    send_line(child, "How far was that again?")
    child.expect("as the report says")
    child.expect(PROMPT)
    leave_repl(child)

    follow_up = llm_server.chat_requests[-1].messages
    assert follow_up[-1] == {"role": "user", "content": "How far was that again?"}
    assert follow_up[-2]["role"] == "assistant" and REPORT in follow_up[-2]["content"]
    assert "## Sources" in follow_up[-2]["content"]


def test_research_without_a_question_says_how_to_use_it(llm_server: LLMServer, tmp_path: Path) -> None:
    child = spawn_repl(llm_server, tmp_path)
    send_line(child, "/research")
    child.expect("usage: /research")
    child.expect(PROMPT)
    leave_repl(child)

    assert llm_server.chat_requests == []
