"""Readings of frontmatter text, remembered across runs: a broken file costs no more than a good one.

Most frontmatter is read by the fast subset reader (:mod:`engine.skills.yaml_subset`); the rest (broken
files among them) needs strictyaml, about 2 ms each, and then perhaps the ordinary YAML reader, again at
every start. A reading — the data, or the message of a refusal — depends on the text alone, so it is kept
in hive's cache folder under the sha256 of the reader's name and version and the text, and looked up
before the reader is imported. The file is read once per process, only when such a frontmatter is met;
it holds the newest :data:`MAX_ENTRIES` readings. Data that the cache would not give back as it was
(dates, sets: anything but text, numbers, booleans, lists and mappings) is read again each time.
"""

from __future__ import annotations

import atexit
import contextlib
import functools
import hashlib
import os
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

    def verdict(self, text: str, compute: Callable[[str], Verdict], reader: str = "strictyaml") -> Verdict:
        """The reading of ``text`` by ``reader`` (a package name): remembered, else ``compute``'d and remembered
        (written when the process ends)."""
        verdicts = self._load()
        key = _key(reader, text)
        found = verdicts.get(key)
        if found is None:
            found = compute(text)
            if not _plain(found.data):
                return found
            verdicts[key] = found
            self.computed += 1
            if self.computed == 1:
                atexit.register(self.save)  # once for all: a start meeting 300 such files writes the cache once
        return found

    def save(self) -> None:
        """Write the verdicts, the newest :data:`MAX_ENTRIES` (housekeeping: a failure costs only strictyaml's time)."""
        if self._verdicts:
            kept = dict(list(self._verdicts.items())[-MAX_ENTRIES:])
            with contextlib.suppress(OSError, ValueError, TypeError):  # at exit: never a traceback for a cache
                replace_private_bytes(self.path, msgspec.msgpack.encode(kept))

    def _load(self) -> dict[str, Verdict]:
        if self._verdicts is None:
            try:
                self._verdicts = _DECODER.decode(read_bounded(self.path, limit=MAX_FILE_BYTES))
            except (OSError, msgspec.DecodeError):
                self._verdicts = {}
        return self._verdicts


def _key(reader: str, text: str) -> str:
    named = f"{reader} {_version(reader)}\0{text}"
    return hashlib.sha256(named.encode(errors="surrogatepass")).hexdigest()


@functools.cache
def _version(package: str) -> str:
    try:
        return version(package)
    except PackageNotFoundError:
        return "unknown"


def _plain(data: object) -> bool:
    """Whether ``data`` comes back from msgpack as it went in (text, numbers, booleans, None, lists, mappings)."""
    if data is None or isinstance(data, str | bool | float):
        return True
    if isinstance(data, int):
        return -(2**63) <= data < 2**64  # msgpack's integers: a larger one could not be written at all
    if isinstance(data, list):
        return all(_plain(item) for item in data)
    if isinstance(data, dict):
        return all(isinstance(key, str) and _plain(value) for key, value in data.items())
    return False


_BY_HOME: dict[str, StrictVerdicts] = {}
"""The remembered readings, by HIVE_HOME (one per process but for tests that move it)."""


def remembered_readings() -> StrictVerdicts:
    """The readings kept in hive's cache folder."""
    home = os.environ.get("HIVE_HOME", "")
    if home not in _BY_HOME:
        from engine.paths import user_cache_dir

        _BY_HOME[home] = StrictVerdicts(user_cache_dir() / "skills" / "strict-frontmatter.msgpack")
    return _BY_HOME[home]
