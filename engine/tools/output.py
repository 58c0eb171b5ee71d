"""Collecting a command's output: all of it while small; head, tail and a file with everything once large."""

from __future__ import annotations

import asyncio
import os
import re
import secrets
import signal
import time
from pathlib import Path
from typing import BinaryIO

from engine.paths import project_root
from engine.scratch import open_scratch_file

OUTPUT_BUDGET = 30_000
"""Bytes of output shown in full; beyond it the first and last half of this are shown."""
SAVED_OUTPUT_CAP = 10_000_000
"""Bytes one saved output keeps at most (``stores.output_file_max_bytes``): its head and its tail."""
_ANSI = re.compile(r"\x1b\[[0-?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)")
_RECENT = 4096
_SAVE_EVERY = 256 * 1024


class CommandOutput:
    """Output of one command as it arrives; the full text is saved under ``spill_dir`` once it passes the budget.

    ``spill_dir`` is made a scratch folder (its own ``.gitignore`` keeps it out of git). The saved file is
    named relative to ``shown_from`` (the working directory) when it lies in that folder's project, so
    the model can pass the name to ``read_file`` as it is.
    """

    def __init__(
        self,
        spill_dir: Path,
        budget: int = OUTPUT_BUDGET,
        *,
        shown_from: Path | None = None,
        kind: str = "command",
        file_cap: int = SAVED_OUTPUT_CAP,
    ) -> None:
        self.spill_dir = spill_dir
        self.kind = kind
        """Starts the saved file's name (``command-…``, or a tool's name)."""
        self.shown_from = shown_from
        self.budget = budget
        self.total = 0
        """Bytes received so far."""
        self.spill_path: Path | None = None
        """The file holding the full output, once it was too large to show."""
        self._head = bytearray()
        self._tail = bytearray()
        self._recent = b""
        self._spill: BinaryIO | None = None
        self._spill_error = ""
        self._moved = ""
        self._over_budget = False
        self._unsaved = bytearray()
        self._saved = SavedCut(file_cap)

    async def add(self, chunk: bytes) -> None:
        """Take the next piece of output. Never raises: a failure to save is reported in the text."""
        self.total += len(chunk)
        self._recent = (self._recent + chunk)[-_RECENT:]
        half = self.budget // 2
        if not self._over_budget:
            if self.total <= self.budget:
                self._head += chunk
                return
            self._over_budget = True
            everything = bytes(self._head) + chunk
            self._head, self._tail = bytearray(everything[:half]), bytearray(everything[-half:])
            await asyncio.to_thread(self._start_spill, everything)
            return
        self._tail = (self._tail + chunk)[-half:]
        self._unsaved += chunk
        if len(self._unsaved) >= _SAVE_EVERY:
            await self._save()

    def last_line(self) -> str:
        """The last non-empty line seen, for progress reports."""
        text = _clean(self._recent.decode("utf-8", errors="replace"))
        lines = [line.rsplit("\r", 1)[-1].strip() for line in text.splitlines()]
        return next((line[:200] for line in reversed(lines) if line), "")

    def render(self) -> str:
        """The output for the model: in full, or head and tail with a pointer to the full text."""
        if self.total == 0:
            return "(no output)"
        if not self._over_budget:
            return _clean(self._head.decode("utf-8", errors="replace"))
        head, tail = _cut_head(bytes(self._head)), _cut_tail(bytes(self._tail))
        omitted = self.total - len(head) - len(tail)
        text = (
            _clean(head.decode("utf-8", errors="replace"))
            + f"\n\n... {omitted} bytes omitted ...\n\n"
            + _clean(tail.decode("utf-8", errors="replace"))
        )
        if self.spill_path is not None:
            moved = f" ({self._moved})" if self._moved else ""
            whole = "the full output is" if not self._saved.cut_at(self.total) else self._saved.said(self.total)
            where = (
                f"{whole} saved in {self._shown_spill_path()}{moved}; read it with read_file (offset/limit) "
                "or search it with grep_files on that path"
            )
        else:
            where = f"the full output could not be saved: {self._spill_error}"
        return f"{end_line(text)}[Output was {self.total} bytes; {where}.]"

    def _shown_spill_path(self) -> str:
        assert self.spill_path is not None
        if self.shown_from is None or not self.spill_path.is_relative_to(project_root(self.shown_from)):
            return str(self.spill_path)
        return os.path.relpath(self.spill_path, self.shown_from)

    async def close(self) -> None:
        """Write what is still buffered and close the file holding the full output, if there is one."""
        if self._spill is not None:
            await self._save()
            await self._finish_spill()
            if self._spill is not None:
                await asyncio.to_thread(self._spill.close)
            self._spill = None

    async def _save(self) -> None:
        chunk, self._unsaved = self._saved.take(bytes(self._unsaved)), bytearray()
        if self._spill is not None and chunk:
            await asyncio.to_thread(self._write_spill, chunk)

    async def _finish_spill(self) -> None:
        """The saved file's end: when the output passed the file's cap, what was left out, then the tail."""
        ending = self._saved.ending()
        if ending and self._spill is not None:
            await asyncio.to_thread(self._write_spill, ending)

    def _start_spill(self, written: bytes) -> None:
        name = f"{self.kind}-{time.strftime('%Y%m%d-%H%M%S')}-{secrets.token_hex(3)}.log"
        try:
            opened = open_scratch_file(self.spill_dir, name)
            self._spill = opened.handle
            self._spill.write(self._saved.take(written))
            self.spill_path, self._moved = opened.path, opened.moved
        except OSError as exc:
            self._spill_error = str(exc)

    def _write_spill(self, chunk: bytes) -> None:
        assert self._spill is not None
        try:
            self._spill.write(chunk)
        except OSError as exc:
            self._spill_error = str(exc)
            self.spill_path = None


class SavedCut:
    """What of an output the saved file keeps: all of it up to ``cap`` bytes, else its head and its tail.

    The head is written as it comes; past it, the last ``cap // 2`` bytes are held in memory and written
    at the end, after a line saying how many bytes were left out between.
    """

    def __init__(self, cap: int) -> None:
        self.tail_size = cap // 2
        self.head_size = cap - self.tail_size
        self.written = 0
        self.left_out = 0
        self._tail = bytearray()

    def take(self, chunk: bytes) -> bytes:
        """The part of ``chunk`` to write now; the rest is kept (or dropped) for the tail."""
        room = max(self.head_size - self.written, 0)
        now, later = chunk[:room], chunk[room:]
        self.written += len(now)
        if later:
            self._tail += later
            excess = len(self._tail) - self.tail_size
            if excess > 0:
                del self._tail[:excess]
                self.left_out += excess
        return now

    def cut_at(self, total: int) -> bool:
        """Whether an output of ``total`` bytes is saved cut."""
        return total > self.head_size + self.tail_size

    def said(self, total: int) -> str:
        """The result's words for a cut file: which bytes it keeps of ``total``."""
        left_out = total - self.head_size - self.tail_size
        return (
            f"the first {self.head_size} and the last {self.tail_size} bytes of the output "
            f"({left_out} bytes between them left out: stores.output_file_max_bytes) are"
        )

    def ending(self) -> bytes:
        """The file's end: the tail held back, after a line saying what was left out before it (if anything was)."""
        if not self.left_out:
            return bytes(self._tail)
        note = (
            f"\n\n[hive: {self.left_out} bytes of output were left out here; this file keeps the first "
            f"{self.head_size} and the last {len(self._tail)} bytes of {self.written + self.left_out + len(self._tail)}]\n\n"
        )
        return note.encode() + bytes(self._tail)


def describe_exit(returncode: int) -> str:
    """``Exit code: N``, naming the signal when the command was killed by one."""
    if returncode < 0:
        return f"Exit code: {returncode} (killed by {_signal_name(-returncode)})"
    if returncode > 128 and _signal_name(returncode - 128).startswith("SIG"):
        return f"Exit code: {returncode} (the command was killed by {_signal_name(returncode - 128)})"
    return f"Exit code: {returncode}"


def _signal_name(number: int) -> str:
    try:
        return signal.Signals(number).name
    except ValueError:
        return f"signal {number}"


def end_line(text: str) -> str:
    """``text`` ending with a line break, so that a note can follow on its own line."""
    return text if text.endswith("\n") else text + "\n"


def _clean(text: str) -> str:
    return _ANSI.sub("", text).replace("\r\n", "\n")


def _cut_head(head: bytes) -> bytes:
    # End the head at a line break when one is reasonably close to the cut.
    newline = head.rfind(b"\n")
    return head[: newline + 1] if newline >= len(head) // 2 else head


def _cut_tail(tail: bytes) -> bytes:
    newline = tail.find(b"\n")
    return tail[newline + 1 :] if 0 <= newline < len(tail) // 2 else tail
