"""A server's elicitation request, answered by hive's handler over stdio against the test server's ``ask``/``choose``."""

from __future__ import annotations

import asyncio
import json
import logging
import secrets
from pathlib import Path
from typing import Any

import pytest

from engine.events import ToolCall
from engine.mcp.client_requests import ClientRequests
from engine.mcp.config import McpServers
from engine.mcp.elicitation import ElicitationAsker, elicitation_handler, question_from, sdk_result
from engine.mcp.elicitation_question import (
    ElicitationAnswer,
    ElicitationMode,
    ElicitationQuestion,
    FormQuestion,
    UrlQuestion,
    form_question,
)
from engine.mcp.manager import McpManager
from engine.tools.base import ToolContext
from tests.support.mcp_servers import python_server


class ScriptedPerson:
    """The host side of the protocol: records each question and gives the answer the test chose."""

    def __init__(self, answer: ElicitationAnswer) -> None:
        self.answer = answer
        self.questions: list[ElicitationQuestion] = []

    async def elicit(self, question: ElicitationQuestion) -> ElicitationAnswer:
        self.questions.append(question)
        return self.answer


async def _call(tool: str, tmp_path: Path, asker: ElicitationAsker | None, mode: ElicitationMode = "ask") -> Any:
    requests = ClientRequests(elicit=elicitation_handler(asker, mode))
    manager = McpManager(McpServers(servers=(python_server(),)), tmp_path / "logs", requests=requests)
    await manager.start()
    try:
        await asyncio.wait_for(manager.wait_ready(), 30)
        ctx = ToolContext(cwd=tmp_path, data_dir=tmp_path)
        result = await manager.call(ToolCall(id=secrets.token_hex(4), name=f"mcp__py__{tool}", arguments={}), ctx)
    finally:
        await manager.stop()
    assert result.success is True, result.output
    return json.loads(result.output)


def test_the_person_sees_the_servers_form_and_their_answer_reaches_the_tool(tmp_path: Path) -> None:
    person = ScriptedPerson(ElicitationAnswer(action="accept", content={"name": "Ada", "age": 36}))
    assert isinstance(person, ElicitationAsker)
    outcome = asyncio.run(_call("ask", tmp_path, person))
    assert outcome == {"action": "accept", "content": {"name": "Ada", "age": 36}}
    [question] = person.questions
    assert isinstance(question, FormQuestion) and question.server == "py"
    assert question.message == "Who are you?\x1b[2K (the server asks)"  # as sent: the host shows it escaped
    name, age = question.fields
    assert (name.name, name.kind, name.required, name.min_length, name.default) == ("name", "string", True, 1, None)
    assert (age.kind, age.required, age.default, age.minimum, age.maximum) == ("integer", False, 30, 0, 150)


def test_a_declined_form_reaches_the_tool_as_declined(tmp_path: Path) -> None:
    person = ScriptedPerson(ElicitationAnswer(action="decline", content={"name": "not sent"}))
    assert asyncio.run(_call("ask", tmp_path, person)) == {"action": "decline", "content": None}


def test_an_answer_that_breaks_the_schema_is_never_sent(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    person = ScriptedPerson(ElicitationAnswer(action="accept", content={"name": "Ada", "age": 200}))
    with caplog.at_level(logging.INFO, logger="hive.mcp.elicitation"):
        outcome = asyncio.run(_call("ask", tmp_path, person))
    assert outcome == {"action": "cancel", "content": None}
    assert "the answer did not fit the form (age: must be at most 150)" in caplog.text


def test_with_nobody_to_ask_the_request_is_declined_and_the_host_told(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    with caplog.at_level(logging.INFO, logger="hive.mcp.elicitation"):
        outcome = asyncio.run(_call("ask", tmp_path, None))
    assert outcome == {"action": "decline", "content": None}
    assert 'server py asked for name, age ("Who are you?' in caplog.text
    assert "declined: nobody to ask" in caplog.text


def test_defaults_mode_accepts_a_form_whose_fields_all_have_defaults_without_asking(tmp_path: Path) -> None:
    person = ScriptedPerson(ElicitationAnswer(action="decline"))
    outcome = asyncio.run(_call("choose", tmp_path, person, mode="defaults"))
    assert outcome == {"action": "accept", "content": {"colour": "green", "loud": False, "extras": ["salt"]}}
    assert person.questions == []


def test_defaults_mode_asks_the_person_when_a_required_field_has_no_default(tmp_path: Path) -> None:
    person = ScriptedPerson(ElicitationAnswer(action="accept", content={"name": "Bo"}))
    outcome = asyncio.run(_call("ask", tmp_path, person, mode="defaults"))
    assert outcome == {"action": "accept", "content": {"name": "Bo", "age": 30}}  # the server fills its own default
    assert len(person.questions) == 1


def test_decline_mode_never_asks(tmp_path: Path) -> None:
    person = ScriptedPerson(ElicitationAnswer(action="accept", content={"name": "Ada"}))
    assert asyncio.run(_call("ask", tmp_path, person, mode="decline")) == {"action": "decline", "content": None}
    assert person.questions == []


def test_the_sep1034_defaults_and_titled_choices_become_fields() -> None:
    schema = {
        "type": "object",
        "properties": {
            "status": {
                "type": "string",
                "enum": ["active", "gone"],
                "enumNames": ["Active", "Gone"],
                "default": "active",
            },
            "tier": {"type": "string", "oneOf": [{"const": "f", "title": "Free"}, {"const": "p", "title": "Pro"}]},
            "tags": {"type": "array", "items": {"anyOf": [{"const": "a", "title": "A"}]}, "maxItems": 1},
            "mail": {"type": "string", "format": "email"},
            "score": {"type": "number", "default": 95.5},
            "ok": {"type": "boolean", "default": True},
        },
        "required": ["tier"],
    }
    status, tier, tags, mail, score, ok = form_question("s", "m", schema).fields
    assert [(c.value, c.title) for c in status.choices] == [("active", "Active"), ("gone", "Gone")]
    assert status.default == "active" and status.kind == "choice"
    assert [(c.value, c.title) for c in tier.choices] == [("f", "Free"), ("p", "Pro")] and tier.required
    assert tags.kind == "choices" and tags.max_items == 1
    assert mail.format == "email" and score.default == 95.5 and ok.default is True


def test_a_url_request_becomes_a_url_question_and_its_acceptance_carries_no_content() -> None:
    from mcp_types import ElicitRequestURLParams

    params = ElicitRequestURLParams(message="Log in", url="https://example.test/x", elicitation_id="1")
    assert question_from("s", params) == UrlQuestion(server="s", message="Log in", url="https://example.test/x")
    result = sdk_result(ElicitationAnswer(action="accept"))
    assert result.action == "accept" and result.content is None
