"""A webhook receiver for tests: checks each delivery's signature and age as a real receiver would.

The check is written here from the documented scheme (HMAC-SHA256 over ``f"{timestamp}.{body}"``), not with
hive's own ``verify``, so a mistake on hive's side cannot agree with itself.
"""

from __future__ import annotations

import hashlib
import hmac
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from tests.support.local_http import LocalServer, RecordedRequest, ResponseWriter

Behaviour = Literal["ok", "fail", "hang"]


@dataclass(frozen=True)
class Delivery:
    """One request as received, with the receiver's verdict."""

    request: RecordedRequest
    signature_ok: bool
    fresh: bool

    @property
    def type(self) -> str:
        return str(self.json["type"])

    @property
    def json(self) -> Any:
        return self.request.json


class WebhookReceiver(LocalServer):
    """Answers 200 (``ok``), 500 for the first ``failures`` deliveries, or never (``hang``)."""

    name = "webhook_receiver"

    def __init__(
        self, secret: str = "", *, behaviour: Behaviour = "ok", failures: int = 0, tolerance_s: float = 300
    ) -> None:
        super().__init__()
        self.secret = secret
        self.behaviour = behaviour
        self.failures = failures
        self.tolerance_s = tolerance_s
        self.deliveries: list[Delivery] = []
        self.answered = 0
        """Requests that got a response (a hanging receiver answers none)."""
        self.arrived = threading.Event()
        """Set when the first request arrives."""

    def handle(self, request: RecordedRequest, writer: ResponseWriter) -> None:
        self.deliveries.append(Delivery(request, self._signed(request), self._fresh(request)))
        self.arrived.set()
        if self.behaviour == "hang":
            writer.wait(None)
            writer.abort()
            return
        failing = self.behaviour == "fail" or len(self.deliveries) <= self.failures
        writer.send_json(500 if failing else 200, {"ok": not failing})
        self.answered += 1

    def _signed(self, request: RecordedRequest) -> bool:
        stamp = request.headers.get("x-hive-timestamp", "")
        mac = hmac.new(self.secret.encode(), stamp.encode() + b"." + request.body, hashlib.sha256)
        return hmac.compare_digest("sha256=" + mac.hexdigest(), request.headers.get("x-hive-signature", ""))

    def _fresh(self, request: RecordedRequest) -> bool:
        stamp = request.headers.get("x-hive-timestamp", "")
        return stamp.isdigit() and abs(time.time() - int(stamp)) <= self.tolerance_s

    def types(self) -> list[str]:
        """The event types delivered, in arrival order."""
        return [d.type for d in self.deliveries]


def write_settings(workdir: Path, url: str, secret_env: str, events: str = "") -> None:
    """A project ``settings.yaml`` with one webhook endpoint (``events``: a YAML flow list's items)."""
    (workdir / ".ironhive").mkdir(exist_ok=True)
    lines = ["webhooks:", "  endpoints:", f"    - url: {url}", f"      secret_env: {secret_env}"]
    if events:
        lines.append(f"      events: [{events}]")
    (workdir / ".ironhive" / "settings.yaml").write_text("\n".join(lines) + "\n")
    from tests.support.trust import trust

    trust(workdir)  # a project's webhooks are sent once the person trusts it
