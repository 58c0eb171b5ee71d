"""Signing deliveries, and checking a signature the way a receiver should.

A delivery carries ``X-Hive-Timestamp`` (Unix seconds) and ``X-Hive-Signature: sha256=<hex>``, the
HMAC-SHA256 of ``f"{timestamp}.{body}"`` under the endpoint's secret. Signing the timestamp with the body
lets a receiver refuse a replayed delivery by its age.
"""

from __future__ import annotations

import hashlib
import hmac
import time

TIMESTAMP_HEADER = "X-Hive-Timestamp"
SIGNATURE_HEADER = "X-Hive-Signature"
DEFAULT_TOLERANCE_S = 300
"""How old a delivery a receiver should accept (5 minutes), in either direction."""


def signature(secret: str, timestamp: int, body: bytes) -> str:
    """The ``X-Hive-Signature`` value for ``body`` sent at ``timestamp``."""
    message = str(timestamp).encode() + b"." + body
    return "sha256=" + hmac.new(secret.encode(), message, hashlib.sha256).hexdigest()


def signed_headers(secret: str | None, body: bytes, timestamp: int | None = None) -> dict[str, str]:
    """The timestamp header, and the signature header when there is a secret."""
    stamp = int(time.time()) if timestamp is None else timestamp
    headers = {TIMESTAMP_HEADER: str(stamp)}
    if secret:
        headers[SIGNATURE_HEADER] = signature(secret, stamp, body)
    return headers


def verify(
    secret: str,
    body: bytes,
    timestamp: str,
    signature_header: str,
    *,
    tolerance_s: float = DEFAULT_TOLERANCE_S,
    now: float | None = None,
) -> bool:
    """Whether a delivery is authentic and fresh: the signature matches and the timestamp is recent."""
    try:
        stamp = int(timestamp)
    except ValueError:
        return False
    current = time.time() if now is None else now
    if abs(current - stamp) > tolerance_s:
        return False
    return hmac.compare_digest(signature(secret, stamp, body), signature_header)
