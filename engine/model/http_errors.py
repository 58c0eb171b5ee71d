"""The failures of hive's own HTTP clients, shaped so ``failures.classify`` reads them as it reads litellm's.

``classify`` looks at ``status_code``, ``code``, ``message`` and the headers; these carry exactly
the provider's status, error code, words and Retry-After.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any


class HttpStatusError(Exception):
    """The server answered with an HTTP error status."""

    def __init__(self, status_code: int, body: bytes, headers: Mapping[str, str]) -> None:
        text = body.decode("utf-8", errors="replace").strip()
        self.status_code = status_code
        self.headers = headers
        self.code = _error_code(text)
        self.message = text or f"HTTP {status_code}"
        super().__init__(self.message)


class StreamErrorEvent(Exception):
    """An error object inside an HTTP 200 stream (some servers report failures this way)."""

    def __init__(self, error: Mapping[str, Any] | str) -> None:
        details: Mapping[str, Any] = error if isinstance(error, Mapping) else {"message": error}
        self.message = str(details.get("message") or json.dumps(details))
        self.code = str(details.get("code") or details.get("type") or "")
        status = details.get("status_code") or details.get("code")
        self.status_code = status if isinstance(status, int) else None
        super().__init__(self.message)


def _error_code(text: str) -> str:
    """The ``code`` (else ``type``) of an OpenAI- or Anthropic-style error envelope, if the body is one."""
    try:
        body = json.loads(text)
    except ValueError:
        return ""
    error = body.get("error") if isinstance(body, dict) else None
    if not isinstance(error, dict):
        return ""
    return str(error.get("code") or error.get("type") or "")
