"""The httpx client that research searches and fetches go through."""

from __future__ import annotations

import functools
import ssl
from typing import Any


def new_http_client(timeout_s: float, *, trust_env: bool) -> Any:
    """An httpx client with one deadline for every phase; close it after use (``async with``)."""
    import httpx2 as httpx

    return httpx.AsyncClient(timeout=timeout_s, trust_env=trust_env, verify=_tls_context())


@functools.cache
def _tls_context() -> ssl.SSLContext:
    # Loading the CA bundle costs about 45 ms; done once, a client per call costs about 1 ms.
    import httpx2 as httpx

    return httpx.create_ssl_context()
