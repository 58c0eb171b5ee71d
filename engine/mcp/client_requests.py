"""How hive answers what a server asks of it mid-session: a value from the person (elicitation) or a model call (sampling).

A server's request reaches the handler of its kind with the server's name and the SDK's request
parameters, and the handler's answer (the SDK's result, or its ``ErrorData`` to refuse) goes back to
the server. A kind without a handler is not declared to servers, so they never ask it. Hosts build
the handlers: one that can ask a person (the REPL) shows the request, one with nobody to ask
declines or refuses it.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

from msgspec import Struct

ServerRequestHandler = Callable[[str, Any], Awaitable[Any]]
"""``(server name, the SDK's request params) -> the SDK's result or ErrorData``."""


class ClientRequests(Struct, frozen=True, kw_only=True):
    """The handlers for the requests a server may send hive; None: that capability is not declared."""

    elicit: ServerRequestHandler | None = None
    """``elicitation/create``: the params are the SDK's ``ElicitRequestParams``; answers an ``ElicitResult``."""
    sample: ServerRequestHandler | None = None
    """``sampling/createMessage``: the params are ``CreateMessageRequestParams``; answers a ``CreateMessageResult``."""


NO_CLIENT_REQUESTS = ClientRequests()
