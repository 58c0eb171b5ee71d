"""strictyaml's verdict on frontmatter text, remembered across runs: a broken SKILL.md costs no more than a good one.

Most frontmatter is read by the fast subset reader (:mod:`engine.skills.yaml_subset`); the rest (broken
files among them) needs strictyaml, about 2 ms each, again at every start. Its verdict — the mapping, or
its error message — depends on the text alone, so it is kept in hive's cache folder under the text's
sha256 and strictyaml's version, and looked up before strictyaml is imported. The file is read once per
process, only when such a frontmatter is met; it holds the newest :data:`MAX_ENTRIES` verdicts.
"""

from __future__ import annotations

import atexit
import contextlib
import functools
import hashlib
from collections.abc import Callable
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path
from typing import Any

import msgspec

from engine.private_files import replace_private_bytes
from engine.safe_read import read_bounded

MAX_ENTRIES = 5000
MAX_FILE_BYTES = 32 * 1024 * 1024
"""A larger file is not read (it was not written by hive): the verdicts are computed again."""
"""Verdicts kept (a few hundred bytes each): more than anyone's skills, so a start reuses all of them."""


class Verdict(msgspec.Struct, frozen=True, array_like=True):
    """strictyaml's reading of a text: its data, or the message of its refusal."""

    data: Any = None
    error: str = ""


_DECODER = msgspec.msgpack.Decoder(dict[str, Verdict])


class StrictVerdicts:
    """The remembered verdicts of one cache file, loaded on first use and written back when one was added."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._verdicts: dict[str, Verdict] | None = None
        self.computed = 0
        """Verdicts strictyaml gave in this process (not found remembered)."""

    def verdict(self, text: str, compute: Callable[[str], Verdict]) -> Verdict:
        """The verdict on ``text``: remembered, else ``compute``'d and remembered (written when the process ends)."""
        verdicts = self._load()
        key = _key(text)
        found = verdicts.get(key)
        if found is None:
            found = verdicts[key] = compute(text)
            self.computed += 1
            if self.computed == 1:
                atexit.register(self.save)  # once for all: a start meeting 300 such files writes the cache once
        return found

    def save(self) -> None:
        """Write the verdicts, the newest :data:`MAX_ENTRIES` (housekeeping: a failure costs only strictyaml's time)."""
        if self._verdicts:
            kept = dict(list(self._verdicts.items())[-MAX_ENTRIES:])
            with contextlib.suppress(OSError):
                replace_private_bytes(self.path, msgspec.msgpack.encode(kept))

    def _load(self) -> dict[str, Verdict]:
        if self._verdicts is None:
            try:
                self._verdicts = _DECODER.decode(read_bounded(self.path, limit=MAX_FILE_BYTES))
            except (OSError, msgspec.DecodeError):
                self._verdicts = {}
        return self._verdicts


def _key(text: str) -> str:
    return hashlib.sha256(f"{_strictyaml_version()}\0{text}".encode(errors="surrogatepass")).hexdigest()


@functools.cache
def _strictyaml_version() -> str:
    try:
        return version("strictyaml")
    except PackageNotFoundError:
        return "unknown"
