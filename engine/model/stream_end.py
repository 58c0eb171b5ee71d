"""Tell a reply that finished from one that broke off, and say what came back when it was not a reply.

A stream that ends without a finish reason and without ``data: [DONE]`` was cut; a 200 response
that is an HTML page, garbage or an empty stream carried no completion. Both are failures, never a
clean (empty or truncated) answer.
"""

from __future__ import annotations

import json

from engine.errors import ContextOverflowError, ProviderError
from engine.model.assembly import StreamAssembler
from engine.model.deadline import DeadlineExceeded
from engine.model.empty_stream import EmptyStream
from engine.model.failures import classify
from engine.model.wire_record import WireRecord


def check_finished(assembler: StreamAssembler, record: WireRecord | None, *, model: str, streamed: bool) -> None:
    """Raise ``ProviderError`` unless the response was a complete reply."""
    if record is not None:
        _check_recorded(assembler, record, model=model, streamed=streamed)
    elif assembler.finish_reason is None and not assembler.received_output:
        raise ProviderError(f"{model} sent no completion: the response held no answer", category="bad_response")


def _check_recorded(assembler: StreamAssembler, record: WireRecord, *, model: str, streamed: bool) -> None:
    # litellm makes up a finish reason at the end of any stream, so the record is the judge.
    if not streamed:
        if assembler.finish_reason is None and not assembler.received_output:
            raise _not_a_completion(model, "a completion", record.describe())
        return
    if record.received == 0 and record.status == 200:
        raise EmptyStream(f"{model} did not answer with a completion stream: got an empty stream ({record.describe()})")
    if not record.is_event_stream:
        raise _not_a_completion(model, "a completion stream", record.describe())
    if record.events == 0:
        raise EmptyStream(f"{model} did not answer with a completion stream: got an empty stream ({record.describe()})")
    if not record.done and not record.finish_sent:
        where = f" ({record.url})" if record.url else ""
        message = f"the reply from {model} broke off {_cut_point(assembler)}: the stream ended unfinished{where}"
        raise ProviderError(message, category="transient", after_output=assembler.received_output)


def _not_a_completion(model: str, expected: str, got: str) -> ProviderError:
    return ProviderError(f"{model} did not answer with {expected}: got {got}", category="bad_response")


def explain(
    exc: BaseException,
    assembler: StreamAssembler,
    record: WireRecord | None,
    *,
    model: str,
    timeout_s: float | None = None,
) -> ProviderError:
    """The ``ProviderError`` for a call that raised, worded with what hive saw of the response.

    ``timeout_s`` is the request timeout: a call that ran out of it says so, with the setting to raise.
    """
    if _is_bad_json(exc) and record is not None:
        return ProviderError(
            f"{model} sent a stream chunk that is not JSON: got {record.describe()}", category="bad_response"
        )
    error = classify(exc, model=model, after_output=assembler.received_output)
    if isinstance(error, ContextOverflowError):
        return error
    url = record.url if record is not None else ""
    where = f" ({url})" if url else ""
    timed_out = timeout_s is not None and _is_timeout(exc)
    deadline = _deadline_of(exc)
    if assembler.received_output and (timed_out or _is_transport_break(exc)):
        detail = _why_cut(exc, timeout_s if timed_out else None)
        return _reworded(error, f"the reply from {model} broke off {_cut_point(assembler)}: {detail}{where}")
    if deadline is not None and record is not None and record.status is not None:
        arrived = f"{record.received:,} byte{'' if record.received == 1 else 's'} of it arrived"
        return _reworded(error, f"the reply from {model} {_late(deadline)}: {arrived}{where}")
    if timed_out and timeout_s is not None and (record is None or record.status is None):
        where = f" from {url}" if url else ""
        return _reworded(error, f"no answer{where}: {_waited(timeout_s)}")
    if error.category == "transient" and url and (record is None or record.status is None):
        return _reworded(error, f"could not reach {url}: {_cause_text(exc)}")
    return error


def _waited(timeout_s: float) -> str:
    return f"the request timed out after {timeout_s:g}s (request_timeout in settings.yaml)"


def _why_cut(exc: BaseException, timeout_s: float | None) -> str:
    """Why a reply broke off: the deadline passed, a read timed out (``timeout_s``), or the connection's words."""
    if (deadline := _deadline_of(exc)) is not None:
        return _late(deadline)
    return _waited(timeout_s) if timeout_s is not None else _cause_text(exc)


def _late(deadline: DeadlineExceeded) -> str:
    return f"did not finish within request_timeout {deadline.timeout_s:g}s (settings.yaml)"


def _deadline_of(exc: BaseException) -> DeadlineExceeded | None:
    """The call's overall deadline, when that is what ended it."""
    return next((link for link in _chain(exc) if isinstance(link, DeadlineExceeded)), None)


_TIMEOUTS = frozenset({"TimeoutException", "ReadTimeout", "ConnectTimeout", "WriteTimeout", "PoolTimeout", "Timeout"})


def _is_timeout(exc: BaseException) -> bool:
    """The call ran out of time: an HTTP client's timeout, or a cancel scope whose deadline passed."""
    for link in _chain(exc):
        names = {cls.__name__ for cls in type(link).__mro__}
        if isinstance(link, TimeoutError) or names & _TIMEOUTS or "deadline exceeded" in str(link):
            return True
    return False


_TRANSPORT_BREAKS = frozenset(
    {"RemoteProtocolError", "ReadError", "ReadTimeout", "WriteError", "ConnectError", "APIConnectionError"}
)


def _is_transport_break(exc: BaseException) -> bool:
    """The connection failed (rather than the provider saying something went wrong)."""
    return any(
        isinstance(link, ConnectionError) or {cls.__name__ for cls in type(link).__mro__} & _TRANSPORT_BREAKS
        for link in _chain(exc)
    )


def _chain(exc: BaseException) -> list[BaseException]:
    links = [exc]
    while len(links) < 8 and (deeper := links[-1].__cause__ or links[-1].__context__) is not None:
        links.append(deeper)
    return links


def _is_bad_json(exc: BaseException) -> bool:
    return any(isinstance(link, json.JSONDecodeError) for link in _chain(exc))


def _cause_text(exc: BaseException) -> str:
    """The innermost cause's words (httpx says more than "Connection error.")."""
    innermost = _chain(exc)[-1]
    text = str(innermost).strip() or str(exc).strip() or type(innermost).__name__
    return text.splitlines()[0][:300]


def _cut_point(assembler: StreamAssembler) -> str:
    return f"after {_amount(assembler)}" if assembler.received_output else "before any output"


def _amount(assembler: StreamAssembler) -> str:
    characters = assembler.text_length
    calls = assembler.call_count
    if calls and not characters:
        return f"{calls} tool call{'' if calls == 1 else 's'} in part"
    return f"{characters:,} character{'' if characters == 1 else 's'}"


def _reworded(error: ProviderError, message: str) -> ProviderError:
    return ProviderError(
        message,
        category=error.category,
        status_code=error.status_code,
        retry_after_s=error.retry_after_s,
        after_output=error.after_output,
    )
