"""Classify provider failures and decide whether and when to retry.

litellm raises subclasses of the OpenAI SDK's exceptions, but maps some bodies inconsistently
(an overflow can arrive as a plain BadRequest, Anthropic's 529 becomes a 500). Classification
therefore looks at the class names in the exception's MRO, then the status code, the error
code and the message, and never imports litellm itself.
"""

from __future__ import annotations

import email.utils
import json
import random
import re
import time
from typing import Any

from msgspec import Struct

from engine.errors import ContextOverflowError, ErrorCategory, ProviderError
from engine.run.recovery import HIVE_RECOVERIES, Recoveries, recovery_for

_OVERFLOW_PHRASES = (
    "context length",
    "context_length_exceeded",
    "context window",
    "prompt is too long",
    "exceed context limit",
    "exceeds the available context",
    "exceed_context_size",
    "maximum context",
    "too many tokens",
)
_INVALID_REQUEST_PHRASES = (
    "invalid request",
    "invalid_request",
    "validation error",
    "validationerror",
    "must be a string",
    "json schema",
    "schema validation",
    "is not valid under",
    "not supported",
    "unsupported",
    "can only concatenate str",  # a chat template that met a null where it expects text (llama-cpp-python)
    "nonetype",
)
_GATEWAY_STATUSES = (502, 503, 504, 529)
"""Proxies and overloaded providers answer these for a moment; their words are not about the request."""
_OUT_OF_CREDIT_PHRASES = ("insufficient_quota", "exceeded your current quota", "credit balance is too low")
_CLASS_CATEGORIES: tuple[tuple[str, ErrorCategory], ...] = (
    ("ContextWindowExceededError", "context_overflow"),
    ("RateLimitError", "rate_limit"),
    ("AuthenticationError", "auth"),
    ("PermissionDeniedError", "auth"),
    ("NotFoundError", "not_found"),
    ("Timeout", "transient"),
    ("APITimeoutError", "transient"),
    ("APIConnectionError", "transient"),
    ("InternalServerError", "transient"),
    ("ServiceUnavailableError", "transient"),
    ("BadGatewayError", "transient"),
    ("MidStreamFallbackError", "transient"),
    ("StreamErrorEvent", "transient"),
    ("UnprocessableEntityError", "bad_request"),
    ("BadRequestError", "bad_request"),
)
_TRANSPORT_ERRORS = ("RemoteProtocolError", "ReadError", "ConnectError", "ConnectTimeout", "ReadTimeout")
_TRY_AGAIN_IN = re.compile(r"try again in (\d+(?:\.\d+)?)\s*(ms|s)", re.IGNORECASE)


def classify(exc: BaseException, *, model: str = "", after_output: bool = False) -> ProviderError:
    """Turn any exception from a model call into a ``ProviderError`` with a category."""
    if isinstance(exc, ProviderError):
        return exc
    message = _message_of(exc)
    status = _status_of(exc)
    category = _category_of(exc, status, message)
    if category == "context_overflow":
        return ContextOverflowError(_user_message(category, message, model), status_code=status)
    return ProviderError(
        _user_message(category, message, model),
        category=category,
        status_code=status,
        retry_after_s=retry_after_of(exc) if category == "rate_limit" else None,
        after_output=after_output,
    )


def _category_of(exc: BaseException, status: int | None, message: str) -> ErrorCategory:
    names = {cls.__name__ for cls in type(exc).__mro__}
    lowered = message.lower()
    code = str(getattr(exc, "code", "") or "")
    if "ContextWindowExceededError" in names or code == "context_length_exceeded":
        return "context_overflow"
    if status in (400, 413) and any(p in lowered for p in _OVERFLOW_PHRASES):
        return "context_overflow"
    if code == "insufficient_quota" or _out_of_credit(lowered):
        return "auth"
    if _says_request_invalid(status, lowered):
        return "bad_request"
    for name, category in _CLASS_CATEGORIES:
        if name in names:
            return category
    if names & set(_TRANSPORT_ERRORS) or isinstance(exc, (ConnectionError, TimeoutError)):
        return "transient"
    return _category_of_status(status)


def _says_request_invalid(status: int | None, lowered: str) -> bool:
    """A server error whose words say the request itself is at fault: asking again can never succeed.

    Servers built on web frameworks answer a request they cannot handle with 500 and the reason
    (a validation error, "content must be a string", a feature not supported).
    """
    if status is None or status in _GATEWAY_STATUSES or not (status >= 500 or status in (408, 409)):
        return False
    return any(phrase in lowered for phrase in _INVALID_REQUEST_PHRASES)


def _category_of_status(status: int | None) -> ErrorCategory:
    if status is None:
        return "unknown"
    if status == 429:
        return "rate_limit"
    if status in (401, 403):
        return "auth"
    if status == 404:
        return "not_found"
    if status in (408, 409) or status >= 500:
        return "transient"
    if 400 <= status < 500:
        return "bad_request"
    return "unknown"


def _user_message(category: ErrorCategory, detail: str, model: str) -> str:
    hint = recovery_for(category).summary
    where = f" ({model})" if model else ""
    detail = _strip_litellm_prefix(detail)
    return f"{hint}{where}: {detail}" if detail else f"{hint}{where}"


_LITELLM_PREFIX = re.compile(r"^(?:litellm\.\w+: |\w+Error: |\w+Exception - |\w+Exception \w+Error - )")


def _strip_litellm_prefix(message: str) -> str:
    """The provider's own words: litellm's (possibly nested) class prefixes and JSON envelopes removed."""
    message = message.strip()
    while (stripped := _LITELLM_PREFIX.sub("", message, count=1)) != message:
        message = stripped
    message = _message_inside_json(message)
    return message.splitlines()[0][:500] if message else ""


def _message_inside_json(text: str) -> str:
    """``{"error": {"message": "..."}}`` (OpenAI or Anthropic envelope; Gemini sends it inside a list) or
    ``{"message": "..."}`` (Mistral) → the message; other text unchanged."""
    if not text.startswith(("{", "[")):
        return text
    try:
        body = json.loads(text)
    except ValueError:
        return text
    if isinstance(body, list) and len(body) == 1:
        body = body[0]
    error = body.get("error") if isinstance(body, dict) else None
    if isinstance(error, dict) and isinstance(error.get("message"), str):
        return str(error["message"]) + _window_named(error)
    if isinstance(error, str):
        return error
    if isinstance(body, dict) and error is None and isinstance(body.get("message"), str):
        return str(body["message"])
    return text


def _window_named(error: dict[str, object]) -> str:
    """llama.cpp's overflow error names the window in fields beside its message (``n_ctx``): say it in words."""
    window, used = error.get("n_ctx"), error.get("n_prompt_tokens")
    if not isinstance(window, int):
        return ""
    took = f"; the request took {used} tokens" if isinstance(used, int) else ""
    return f" (n_ctx {window}{took})"


def _out_of_credit(lowered: str) -> bool:
    """The words of an account out of credit; Gemini says the same of a per-minute or per-day limit, marked
    ``RESOURCE_EXHAUSTED``: a rate limit to wait out."""
    return any(p in lowered for p in _OUT_OF_CREDIT_PHRASES) and "resource_exhausted" not in lowered


def _message_of(exc: BaseException) -> str:
    message = getattr(exc, "message", None)
    text = str(message) if message else str(exc)
    if _BARE_STATUS.search(text):
        text = _body_in_chain(exc) or text
    return text if "n_ctx" in text else text + _window_in_response(exc)


_BARE_STATUS = re.compile(r"(?:^|- )Error code: \d+$")
"""The OpenAI SDK's words for an error body it could not read (Gemini's, a list): the body says more."""


def _body_in_chain(exc: BaseException) -> str | None:
    """The error body kept by an exception in ``exc``'s chain (the SDK's error that litellm wraps), as JSON."""
    link: BaseException | None = exc
    for _ in range(6):
        if link is None:
            break
        body = getattr(link, "body", None)
        if isinstance(body, dict | list):
            return json.dumps(body)
        link = link.__cause__ or link.__context__
    return None


def _window_in_response(exc: BaseException) -> str:
    """The window named beside the message in the error body (litellm keeps only the message; the OpenAI SDK's
    error it wraps keeps the body)."""
    link: BaseException | None = exc
    for _ in range(6):
        if link is None:
            break
        body = getattr(link, "body", None)
        if isinstance(body, dict) and (named := _window_named(body)):
            return named
        link = link.__cause__ or link.__context__
    return ""


def _status_of(exc: BaseException) -> int | None:
    for attr in ("status_code", "status"):
        value = getattr(exc, attr, None)
        if isinstance(value, int):
            return value
    response = getattr(exc, "response", None)
    value = getattr(response, "status_code", None)
    return value if isinstance(value, int) else None


def retry_after_of(exc: BaseException) -> float | None:
    """Seconds the provider asked us to wait: Retry-After headers, then "try again in 11.1s" text."""
    for headers in _headers_of(exc):
        for name in ("retry-after-ms", "retry-after"):
            value = _header(headers, name)
            if value is not None:
                seconds = _parse_retry_after(value)
                if seconds is not None:
                    return seconds / 1000 if name == "retry-after-ms" else seconds
    match = _TRY_AGAIN_IN.search(_message_of(exc))
    if match:
        amount = float(match.group(1))
        return amount / 1000 if match.group(2).lower() == "ms" else amount
    return None


def _headers_of(exc: BaseException) -> list[Any]:
    found = []
    for source in (
        getattr(exc, "litellm_response_headers", None),
        getattr(getattr(exc, "response", None), "headers", None),
        getattr(exc, "headers", None),
    ):
        if source is not None:
            found.append(source)
    return found


def _header(headers: Any, name: str) -> str | None:
    try:
        value = headers.get(name)
    except AttributeError:
        return None
    return str(value) if value is not None else None


def _parse_retry_after(value: str) -> float | None:
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    parsed = email.utils.parsedate_to_datetime(value) if value else None
    if parsed is None:
        return None
    return max(0.0, parsed.timestamp() - time.time())


class RetryPolicy(Struct, frozen=True, kw_only=True):
    """How hive retries model calls that failed before producing output.

    ``recoveries`` (``engine.run.recovery``) decides what is retried: by default rate limits wait for the provider's Retry-After
    (capped), transient failures back off exponentially with jitter. Nothing else is retried here.
    """

    max_attempts: int = 4
    base_delay_s: float = 1.0
    max_delay_s: float = 20.0
    retry_after_cap_s: float = 60.0
    recoveries: Recoveries = HIVE_RECOVERIES
    """Which categories are retried here (``backoff`` and ``retry_after``): hive's table or the host's."""

    def delay_for(self, error: ProviderError, attempt: int) -> float | None:
        """Seconds to wait before attempt ``attempt + 1``, or None to give up."""
        if not self.recoveries.retried_by_model_layer(error) or attempt >= self.max_attempts:
            return None
        if error.retry_after_s is not None:
            return min(error.retry_after_s, self.retry_after_cap_s)
        backoff = min(self.base_delay_s * float(2 ** (attempt - 1)), self.max_delay_s)
        return backoff * (0.75 + random.random() / 2)
