"""Delivering notifications in the background: one worker per endpoint, retries with backoff, failures logged.

``send`` only puts the notification on each interested endpoint's bounded queue, so a turn never waits for
a receiver: a slow, hanging or unreachable receiver delays nothing but its own deliveries. A full queue
drops the notification (logged). ``close`` gives the queues a short bound to empty, then stops.

Logs name an endpoint by scheme, host and port only: webhook URLs often carry a token in their path.
Secrets are never logged.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Mapping
from typing import Any

import httpx2 as httpx

from engine.events import Event
from engine.webhooks.options import WebhookEventType, WebhookOptions
from engine.webhooks.payloads import Payload, event_payload, payload
from engine.webhooks.signing import signed_headers
from engine.webhooks.targets import Target, targets_of

log = logging.getLogger("hive.webhooks")

QUEUE_SIZE = 256
"""Notifications waiting per endpoint before new ones are dropped."""


class WebhookSender:
    """Sends notifications to the endpoints from background tasks; never blocks the caller."""

    def __init__(
        self,
        targets: list[Target],
        *,
        timeout_s: float,
        max_attempts: int,
        drain_timeout_s: float,
        base_delay_s: float = 0.5,
        max_delay_s: float = 10.0,
    ) -> None:
        self.targets = targets
        self.timeout_s = timeout_s
        self.max_attempts = max_attempts
        self.drain_timeout_s = drain_timeout_s
        self.base_delay_s = base_delay_s
        self.max_delay_s = max_delay_s
        self._queues: list[asyncio.Queue[Payload]] = []
        self._workers: list[asyncio.Task[None]] = []
        self._unfinished: list[int] = []
        """Per endpoint: notifications queued or being delivered."""
        self._client: httpx.AsyncClient | None = None

    @classmethod
    def from_options(cls, options: WebhookOptions, environ: Mapping[str, str] | None = None) -> WebhookSender:
        """A sender for the configured endpoints (``ConfigError`` for a secret variable that is unset or empty)."""
        return cls(
            targets_of(options, environ),
            timeout_s=options.timeout,
            max_attempts=options.max_attempts,
            drain_timeout_s=options.drain_timeout,
        )

    def start(self) -> None:
        """Start one worker per endpoint on the running event loop."""
        if self._workers:
            return
        self._client = httpx.AsyncClient(timeout=httpx.Timeout(self.timeout_s), follow_redirects=False)
        for target in self.targets:
            queue: asyncio.Queue[Payload] = asyncio.Queue(maxsize=QUEUE_SIZE)
            self._queues.append(queue)
            self._unfinished.append(0)
            number = len(self._workers)
            self._workers.append(asyncio.create_task(self._work(number, queue), name=f"webhook {target.where}"))

    def send(self, payload: Payload) -> None:
        """Queue ``payload`` for every endpoint that wants its type; returns at once."""
        for number, (target, queue) in enumerate(zip(self.targets, self._queues, strict=True)):
            if not target.wants(payload.type):
                continue
            try:
                queue.put_nowait(payload)
                self._unfinished[number] += 1
            except asyncio.QueueFull:
                log.warning("webhook %s: queue full, %s notification dropped", target.where, payload.type)

    def notify(self, kind: WebhookEventType, session_id: str | None, data: dict[str, Any]) -> None:
        """Queue the notification of ``kind`` with ``data`` (see :func:`engine.webhooks.payloads.payload`)."""
        self.send(payload(kind, session_id, data))

    def send_event(self, event: Event, session_id: str | None) -> None:
        """Queue the notification of a run's event, when webhooks are sent for events of its kind."""
        notification = event_payload(event, session_id)
        if notification is not None:
            self.send(notification)

    async def close(self) -> None:
        """Wait up to ``drain_timeout_s`` for queued notifications, then stop the workers (what is left is logged)."""
        if not self._workers:
            return
        joined = asyncio.gather(*(queue.join() for queue in self._queues))
        try:
            await asyncio.wait_for(joined, self.drain_timeout_s)
        except TimeoutError:
            for target, left in zip(self.targets, self._unfinished, strict=True):
                if left:
                    log.warning("webhook %s: %d notification(s) not delivered at close", target.where, left)
        for worker in self._workers:
            worker.cancel()
        for worker in self._workers:
            with contextlib.suppress(asyncio.CancelledError):
                await worker
        self._workers.clear()
        if self._client is not None:
            await self._client.aclose()

    async def _work(self, number: int, queue: asyncio.Queue[Payload]) -> None:
        while True:
            payload = await queue.get()
            try:
                await self._deliver(self.targets[number], payload)
            finally:
                self._unfinished[number] -= 1
                queue.task_done()

    async def _deliver(self, target: Target, payload: Payload) -> None:
        """Try ``payload`` up to ``max_attempts`` times; the last failure is logged."""
        for attempt in range(1, self.max_attempts + 1):
            problem, retry = await self._attempt(target, payload)
            if problem is None:
                return
            if not retry or attempt == self.max_attempts:
                log.warning(
                    "webhook %s: %s notification %s not delivered after %d attempt(s): %s",
                    target.where,
                    payload.type,
                    payload.delivery_id,
                    attempt,
                    problem,
                )
                return
            await asyncio.sleep(min(self.base_delay_s * 2 ** (attempt - 1), self.max_delay_s))

    async def _attempt(self, target: Target, payload: Payload) -> tuple[str | None, bool]:
        """One POST: (None, _) when delivered, else what went wrong and whether another attempt may help."""
        assert self._client is not None
        headers = {
            "Content-Type": "application/json",
            "User-Agent": "hive-webhooks",
            "X-Hive-Event": payload.type,
            "X-Hive-Delivery": payload.delivery_id,
            **signed_headers(target.secret, payload.body),  # signed afresh, so a retry is not refused as stale
        }
        try:
            response = await self._client.post(target.url, content=payload.body, headers=headers)
        except httpx.HTTPError as exc:
            return f"{type(exc).__name__}: {exc}" if str(exc) else type(exc).__name__, True
        if 200 <= response.status_code < 300:
            return None, False
        status = response.status_code
        return f"HTTP {status}", status >= 500 or status in (408, 429)
