"""stdin as a stream of user messages and approval answers, read on a thread and sorted on the event loop.

A thread reads (a pipe, a file or a socket: all work the same), the loop sorts: a user message waits in line for
the conversation, an approval answer goes to the question waiting for it, and a line that cannot be taken is
reported once, through ``report``, and skipped. At the end of input every question still waiting is answered
"nobody" (the approver denies it) and the conversation ends after its last message.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Callable
from typing import BinaryIO

from hive_cli.headless.input_lines import ApprovalAnswer, InputLine, InputProblem, UserMessage, parse_line


class Inbox:
    """What the program driving hive sends, sorted into messages and answers."""

    def __init__(self) -> None:
        self.report: Callable[[InputProblem], None] = _unheard
        """Told each line that cannot be taken (set once the output is open, before reading starts)."""
        self._messages: asyncio.Queue[UserMessage | None] = asyncio.Queue()
        self._questions: dict[str, asyncio.Future[ApprovalAnswer | None]] = {}
        self.ended = False
        self._stopped = False
        """Whether stdin has ended: no answer can come any more."""

    def start(self, stream: BinaryIO) -> None:
        """Read ``stream`` line by line on a daemon thread until it ends."""
        loop = asyncio.get_running_loop()
        threading.Thread(target=self._read, args=(stream, loop), name="hive-stdin", daemon=True).start()

    async def next_message(self) -> UserMessage | None:
        """The next user message; None once stdin has ended and every message was taken, or after ``stop``."""
        message = None if self._stopped else await self._messages.get()
        return None if self._stopped else message

    def stop(self) -> None:
        """Take no more messages (Ctrl-C, SIGTERM): the conversation ends after the run in flight."""
        self._stopped = True
        self._messages.put_nowait(None)

    def expect(self, request_id: str) -> asyncio.Future[ApprovalAnswer | None]:
        """The answer to the question ``request_id`` when it comes (None: stdin ended first)."""
        answer: asyncio.Future[ApprovalAnswer | None] = asyncio.get_running_loop().create_future()
        if self.ended:
            answer.set_result(None)
        else:
            self._questions[request_id] = answer
        return answer

    def forget(self, request_id: str) -> None:
        """Stop waiting for an answer to ``request_id`` (it timed out); a late answer is then reported."""
        self._questions.pop(request_id, None)

    def _read(self, stream: BinaryIO, loop: asyncio.AbstractEventLoop) -> None:
        try:
            self._read_lines(stream, loop)
            loop.call_soon_threadsafe(self._end)
        except RuntimeError:
            pass  # the loop is closed: the run ended before its input did, and nobody is listening any more

    def _read_lines(self, stream: BinaryIO, loop: asyncio.AbstractEventLoop) -> None:
        number = 0
        try:
            for raw in iter(stream.readline, b""):
                number += 1
                parsed = parse_line(raw, number)
                if parsed is not None:
                    loop.call_soon_threadsafe(self._take, parsed)
        except (OSError, ValueError) as error:  # stdin closed under us: the same as its end
            loop.call_soon_threadsafe(self._take, InputProblem(message=f"stdin failed: {error}", line=number + 1))

    def _take(self, item: InputLine) -> None:
        match item:
            case UserMessage():
                self._messages.put_nowait(item)
            case ApprovalAnswer(request_id=request_id):
                question = self._questions.pop(request_id, None)
                if question is None or question.done():
                    self.report(InputProblem(message=f"no approval question {request_id!r} is waiting", line=item.line))
                else:
                    question.set_result(item)
            case InputProblem():
                self.report(item)

    def _end(self) -> None:
        self.ended = True
        for question in self._questions.values():
            if not question.done():
                question.set_result(None)
        self._questions.clear()
        self._messages.put_nowait(None)


def _unheard(problem: InputProblem) -> None:
    return None
