"""The real local model check: the real `hive run` against llama-cpp-python serving SmolLM2-135M (2048 window).

Run by `make test-local-model` only (it builds the server's venv once, outside the checkout, and names its
python in HIVE_LOCAL_MODEL_PYTHON); skipped otherwise. The model is weak, so nothing here judges its
answers: the checks read the wire a recording proxy kept — what hive sent, what the server answered, and
how hive handled the answer. Both of hive's clients for an OpenAI-compatible server are checked: its own
and litellm.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.local_model.llama_server import WINDOW, LlamaServer, running_llama_server, venv_python
from tests.local_model.recording_proxy import Exchange, RecordingProxy
from tests.local_model.wire_session import WireSession, is_overflow_answer, run_tasks, same_messages, summary

SUMMARY_VARIABLE = "HIVE_LOCAL_MODEL_SUMMARY"

pytestmark = [
    pytest.mark.skipif(
        venv_python() is None,
        reason="the real local model check runs only under `make test-local-model` "
        "(HIVE_LOCAL_MODEL_PYTHON names the python of the cached llama-cpp-python venv)",
    ),
    pytest.mark.timeout(3600),
]


@pytest.fixture(scope="module")
def llama_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LlamaServer]:
    python = venv_python()
    assert python is not None
    with running_llama_server(python, tmp_path_factory.mktemp("llama_server")) as server:
        yield server


@pytest.fixture(scope="module", params=["hive", "litellm"])
def wire(
    request: pytest.FixtureRequest, llama_server: LlamaServer, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[WireSession]:
    client = str(request.param)
    with RecordingProxy(llama_server.url) as proxy:
        session = run_tasks(client, proxy, tmp_path_factory.mktemp(f"client_{client}"))
    _publish(summary(session))
    yield session


def _publish(text: str) -> None:
    target = os.environ.get(SUMMARY_VARIABLE)
    if target:
        with Path(target).open("a") as summary_file:
            summary_file.write(text + "\n")
    else:
        print(text)


def _refused(exchange: Exchange) -> bool:
    return exchange.failed or exchange.empty_stream


def _overflow_exchanges(chats: list[Exchange]) -> list[Exchange]:
    """Overflow answers, and empty streams whose unstreamed retry of the same messages was an overflow."""
    found = []
    for index, exchange in enumerate(chats):
        after = chats[index + 1] if index + 1 < len(chats) else None
        hidden = exchange.empty_stream and after is not None and same_messages(exchange, after)
        if is_overflow_answer(exchange) or (hidden and after is not None and is_overflow_answer(after)):
            found.append(exchange)
    return found


def _describe(exchange: Exchange) -> str:
    return (
        f"{exchange.status}{' empty stream' if exchange.empty_stream else ''} to a "
        f"{'streamed' if exchange.streamed else 'unstreamed'} request with {len(exchange.tool_names)} tools: "
        f"{exchange.error_text() or '(no body)'}"
    )


def test_hive_sends_its_tools_with_tool_choice_auto(wire: WireSession) -> None:
    """Without tool_choice, chatml-function-calling silently drops every tool."""
    chats = wire.chats
    assert chats, f"no chat request reached the server; the runs' errors: {[run.error for run in wire.runs]}"
    with_tools = [exchange for exchange in chats if exchange.tool_names]
    assert with_tools, "no request offered any tool"
    missing = [
        exchange.payload.get("tool_choice") for exchange in with_tools if exchange.payload.get("tool_choice") != "auto"
    ]
    assert not missing, (
        f"{len(missing)} of {len(with_tools)} requests with tools had tool_choice {missing[:3]}, not 'auto'"
    )


def test_no_message_is_sent_with_null_content(wire: WireSession) -> None:
    """The server answers HTTP 500 to an assistant message whose content is null."""
    nulls = [
        (index, message.get("role"))
        for index, exchange in enumerate(wire.chats)
        for message in exchange.payload.get("messages") or ()
        if "content" in message and message["content"] is None
    ]
    assert not nulls, f"messages sent with content: null (request index, role): {nulls[:5]}"


def test_streamed_requests_ask_for_usage(wire: WireSession) -> None:
    streamed = [exchange for exchange in wire.chats if exchange.streamed]
    unasked = [e for e in streamed if (e.payload.get("stream_options") or {}).get("include_usage") is not True]
    assert not unasked, f"{len(unasked)} of {len(streamed)} streamed requests did not ask for usage"


def test_the_server_accepts_every_request_but_one_learned_fallback(wire: WireSession) -> None:
    """No 4xx/5xx, cut or empty answer, except one refused stream with tools that hive falls back from and
    remembers (the runs share a user cache, so the second and third task must not meet it again).
    Overflows are judged by the next test."""
    chats = wire.chats
    overflows = _overflow_exchanges(chats)
    refused = [(i, e) for i, e in enumerate(chats) if _refused(e) and e not in overflows and not is_overflow_answer(e)]
    fallbacks = [
        (i, e)
        for i, e in refused
        if e.empty_stream and e.tool_names and i + 1 < len(chats) and not chats[i + 1].streamed
        and same_messages(e, chats[i + 1]) and not _refused(chats[i + 1])
    ]  # fmt: skip
    unexplained = [_describe(e) for i, e in refused if (i, e) not in fallbacks[:1]]
    assert not unexplained, f"{len(unexplained)} of {len(chats)} requests refused: {unexplained[:4]}"


def test_an_overflow_of_the_window_is_named_or_avoided(wire: WireSession) -> None:
    """A request over the 2048 window is either followed by a smaller one the server accepts, or the run ends
    with exit 1 and an error that names the window."""
    unhandled = []
    for run in wire.runs:
        chats = run.chats
        for exchange in _overflow_exchanges(chats):
            later = chats[chats.index(exchange) + 1 :]
            shrunk = any(len(e.request.body) < len(exchange.request.body) and not _refused(e) for e in later)
            named = run.returncode == 1 and str(WINDOW) in run.error
            if not (shrunk or named):
                unhandled.append(f"task {run.task.name}: exit {run.returncode}, error {run.error!r}")
                break
    assert not unhandled, f"an overflow of the {WINDOW}-token window was neither avoided nor named: {unhandled}"


def test_a_refused_request_is_not_sent_again_unchanged(wire: WireSession) -> None:
    """A 4xx/5xx whose body says the request is invalid can never succeed: retrying it as it was is waste."""
    repeats = [
        _describe(first)
        for run in wire.runs
        for first, second in zip(run.chats, run.chats[1:], strict=False)
        if first.status >= 400 and first.request.body == second.request.body
    ]
    assert not repeats, f"{len(repeats)} refused requests were sent again unchanged: {repeats[:3]}"


def test_every_run_ends_with_a_documented_status_and_no_traceback(wire: WireSession) -> None:
    bad = [
        f"task {run.task.name}: exit {run.returncode}: {run.stderr[-300:]}"
        for run in wire.runs
        if run.returncode not in (0, 1, 3) or "Traceback" in run.stderr
    ]
    assert not bad, bad


def test_hive_models_shows_the_window_it_learned(wire: WireSession) -> None:
    done = wire.models_output
    assert done is not None
    assert done.returncode == 0, f"hive models: exit {done.returncode}: {done.stderr.strip()[-300:]}"
    assert f"{WINDOW:,}" in done.stdout, f"hive models does not show the {WINDOW}-token window: {done.stdout[-400:]}"
