"""How hive answers a server's ``elicitation/create`` request: the person is asked, or the request declined.

The handler (:func:`elicitation_handler`, the ``elicit`` of :class:`~engine.mcp.client_requests.ClientRequests`)
turns the SDK's request into an :mod:`~engine.mcp.elicitation_question` record and answers it by the
session's :data:`~engine.mcp.elicitation_question.ElicitationMode`:

- ``ask``: the host's :class:`ElicitationAsker` (the REPL's form) puts it to the person, who accepts,
  declines or cancels; with no asker the request is declined.
- ``decline``: every request is declined.
- ``defaults``: a form whose every required field has a default is accepted with the defaults;
  anything else is handled as under ``ask``.

A URL-mode request is shown to the person (the URL as text) for accept or decline; hive never opens
it: the person does, if they accept. An accepted form's content is checked against the schema before
it is sent; content that does not fit is never sent (the server is told the form was cancelled).

Each request hive declines or cancels without the person is reported on the ``hive.mcp.elicitation``
logger at INFO (``hive run`` prints these on stderr), so a script's author learns that a server asked.
"""

from __future__ import annotations

import logging
from typing import Any, Protocol, runtime_checkable

from engine.mcp.client_requests import ServerRequestHandler
from engine.mcp.elicitation_question import (
    ElicitationAnswer,
    ElicitationMode,
    ElicitationQuestion,
    FormQuestion,
    UnsupportedForm,
    UrlQuestion,
    answer_problems,
    defaults_answer,
    form_question,
)

NOTES = logging.getLogger("hive.mcp.elicitation")
"""Where hive reports a request it answered without the person (INFO): one line each, for the host to show."""

SHOWN_MESSAGE_CHARS = 120


@runtime_checkable
class ElicitationAsker(Protocol):
    """A host that can put a server's question to a person (the REPL's approver implements it)."""

    async def elicit(self, question: ElicitationQuestion) -> ElicitationAnswer:
        """Show the question (its text as untrusted: every control character visible) and return the answer."""
        ...


def elicitation_handler(asker: ElicitationAsker | None, mode: ElicitationMode = "ask") -> ServerRequestHandler:
    """The ``elicit`` handler for a session whose person is reached through ``asker`` (None: nobody)."""

    async def handle(server: str, params: Any) -> Any:
        answer = await answer_request(server, params, asker, mode)
        return sdk_result(answer)

    return handle


async def answer_request(
    server: str, params: Any, asker: ElicitationAsker | None, mode: ElicitationMode
) -> ElicitationAnswer:
    """The answer to one request (the SDK's ``ElicitRequestParams``), by ``mode``."""
    try:
        question = question_from(server, params)
    except UnsupportedForm as exc:
        return _declined(server, f"a form ({_short(params.message)})", f"hive cannot show it: {exc}")
    if mode == "decline":
        return _declined(server, _asked_for(question), "this session declines every request (--elicitation decline)")
    if mode == "defaults" and isinstance(question, FormQuestion):
        accepted = defaults_answer(question)
        if accepted is not None:
            return accepted
    if asker is None:
        return _declined(server, _asked_for(question), "nobody to ask")
    return _checked(question, await asker.elicit(question))


def question_from(server: str, params: Any) -> ElicitationQuestion:
    """hive's record of the SDK's request parameters (form or URL mode)."""
    if getattr(params, "mode", "form") == "url":
        return UrlQuestion(server=server, message=params.message, url=params.url)
    return form_question(server, params.message, params.requested_schema or {})


def _checked(question: ElicitationQuestion, answer: ElicitationAnswer) -> ElicitationAnswer:
    """The answer as it may be sent: a URL question's acceptance carries no content; a form's must fit."""
    if answer.action != "accept":
        return ElicitationAnswer(action=answer.action)
    if isinstance(question, UrlQuestion):
        return ElicitationAnswer(action="accept")
    problems = answer_problems(question, answer.content)
    if problems:
        NOTES.info(
            "server %s asked for %s; cancelled: the answer did not fit the form (%s)",
            question.server,
            _asked_for(question),
            "; ".join(problems),
        )
        return ElicitationAnswer(action="cancel")
    return answer


def _declined(server: str, asked_for: str, why: str) -> ElicitationAnswer:
    NOTES.info("server %s asked for %s; declined: %s", server, asked_for, why)
    return ElicitationAnswer(action="decline")


def _asked_for(question: ElicitationQuestion) -> str:
    """What the server asked for, in a few words: ``name, age ("Who are you?")`` or ``a visit to URL``."""
    if isinstance(question, UrlQuestion):
        return f"a visit to {question.url} ({_short(question.message)})"
    names = ", ".join(f.name for f in question.fields) or "a confirmation"
    return f"{names} ({_short(question.message)})"


def _short(message: str) -> str:
    shown = message if len(message) <= SHOWN_MESSAGE_CHARS else message[: SHOWN_MESSAGE_CHARS - 1] + "…"
    return f'"{shown}"'


def sdk_result(answer: ElicitationAnswer) -> Any:
    """The SDK's ``ElicitResult`` for an answer (content only with an accepted form)."""
    from mcp_types import ElicitResult

    content: dict[str, Any] | None = dict(answer.content) if answer.action == "accept" and answer.content else None
    return ElicitResult(action=answer.action, content=content)


def withdrawn(started: bool) -> Any:
    """The answer to a request no tool call of the server is waiting for (any more, when ``started``): cancelled,
    so a form never comes up, or stays up, once its call is over (see :mod:`engine.mcp.calls_in_flight`)."""
    NOTES.info("a server's request for a value was cancelled: %s", WITHDRAWN if started else OUTSIDE_A_CALL)
    return sdk_result(ElicitationAnswer(action="cancel"))


WITHDRAWN = "the tool call it was for ended"
OUTSIDE_A_CALL = "a server may ask only during a call to one of its tools"
