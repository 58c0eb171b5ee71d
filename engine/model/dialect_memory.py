"""What hive learned about each OpenAI-compatible server's dialect, kept for later runs.

Keyed by the server's base URL and the model, so one llama.cpp server that refuses to stream with
tools is asked unstreamed from the first request of every later run, without a failed request and a
notice each time. A host that says where (``keep_in``; the hive program does, in the user cache
folder) gets the facts written to ``model-dialects.json`` there; otherwise they last for the process.
Deleting the file forgets them all.
"""

from __future__ import annotations

import contextlib
import json
import os
import threading
from collections.abc import Callable
from pathlib import Path

from engine.model.dialect import Lesson, ServerFacts
from engine.private_files import open_private, private_dir
from engine.safe_read import UnsafeFile, read_bounded

DIALECTS_FILE = "model-dialects.json"
_READ_LIMIT = 1 << 20

_folder: Callable[[], Path] | None = None
_known: dict[str, ServerFacts] | None = None
_lock = threading.Lock()


def keep_in(folder: Callable[[], Path] | None) -> None:
    """Keep what is learned in the folder ``folder()`` names, for later runs (None: for this process only)."""
    global _folder, _known
    with _lock:
        _folder = folder
        _known = None


def facts_for(server: str, model: str) -> ServerFacts:
    """What is known about ``model`` served at ``server`` (everything accepted when nothing was learned)."""
    with _lock:
        return _facts().get(_key(server, model), ServerFacts())


def learn(server: str, model: str, lesson: Lesson) -> None:
    """Remember ``lesson`` about ``model`` at ``server`` (and write it down when a folder was given)."""
    global _known
    with _lock:
        known = _known = _merged(_read() if _folder is not None else {}, _facts())  # another run may have learned too
        key = _key(server, model)
        known[key] = known.get(key, ServerFacts()).taught(lesson)
        _save(known)


def _merged(saved: dict[str, ServerFacts], ours: dict[str, ServerFacts]) -> dict[str, ServerFacts]:
    """Both runs' lessons: a refusal learned by either counts."""
    merged = dict(saved)
    for key, facts in ours.items():
        other = merged.get(key, ServerFacts())
        merged[key] = ServerFacts(
            streams_with_tools=facts.streams_with_tools and other.streams_with_tools,
            accepts_stream_options=facts.accepts_stream_options and other.accepts_stream_options,
        )
    return merged


def _key(server: str, model: str) -> str:
    return f"{server.rstrip('/')} {model}"


def _facts() -> dict[str, ServerFacts]:
    global _known
    if _known is None:
        _known = _read() if _folder is not None else {}
    return _known


def _read() -> dict[str, ServerFacts]:
    """The saved facts; none when the file is missing, unreadable or not ours."""
    assert _folder is not None
    try:
        saved = json.loads(read_bounded(_folder() / DIALECTS_FILE, limit=_READ_LIMIT))
    except (OSError, UnsafeFile, ValueError):
        return {}
    servers = saved.get("servers") if isinstance(saved, dict) else None
    if not isinstance(servers, dict):
        return {}
    return {key: _facts_of(value) for key, value in servers.items() if isinstance(value, dict)}


def _facts_of(saved: dict[str, object]) -> ServerFacts:
    return ServerFacts(
        streams_with_tools=saved.get("streams_with_tools") is not False,
        accepts_stream_options=saved.get("accepts_stream_options") is not False,
    )


def _save(known: dict[str, ServerFacts]) -> None:
    """Write the facts (a temporary file, then renamed); a cache that cannot be written is no loss."""
    if _folder is None:
        return
    file = _folder() / DIALECTS_FILE
    partial = file.with_name(f".{file.name}.{os.getpid()}.{threading.get_ident()}")
    servers = {
        key: {"streams_with_tools": facts.streams_with_tools, "accepts_stream_options": facts.accepts_stream_options}
        for key, facts in known.items()
    }
    try:
        private_dir(file.parent)
        with open_private(partial, "w") as handle:
            handle.write(json.dumps({"servers": servers}, indent=1))
        os.replace(partial, file)
    except OSError:
        with contextlib.suppress(OSError):
            partial.unlink(missing_ok=True)
