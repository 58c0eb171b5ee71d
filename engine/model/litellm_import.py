"""Import litellm lazily, offline and quietly; optionally start the import in the background.

``import litellm`` takes seconds, so nothing on the path of ``hive --version``, ``--help`` or the
REPL's first keystroke may trigger it. Hosts call ``preload()`` as early as they know a model
call is coming, overlapping the import with the rest of their start-up.
"""

from __future__ import annotations

import logging
import threading
from types import ModuleType

from engine.own_variables import set_for_this_process

_lock = threading.Lock()
_module: ModuleType | None = None
_error: BaseException | None = None
_thread: threading.Thread | None = None


def _import() -> None:
    global _module, _error
    with _lock:
        if _module is not None or _error is not None:
            return
        set_for_this_process("LITELLM_LOCAL_MODEL_COST_MAP", "True")
        set_for_this_process("LITELLM_LOG", "ERROR")
        # Token counting uses litellm's bundled tokenizer files; offline mode keeps it from downloading others.
        set_for_this_process("LITELLM_OFFLINE_MODE", "true")
        try:
            import litellm
        except BaseException as exc:  # surfaced by load(); an import failure must not kill the thread silently
            _error = exc
            return
        # hive counts usage from what providers report and logs nothing through litellm, so its
        # per-call token counting and logging threads are pure cost (and counting would be a guess).
        quiet = {
            "suppress_debug_info": True,
            "set_verbose": False,
            "drop_params": True,
            "telemetry": False,
            "disable_token_counter": True,
            "disable_streaming_logging": True,
        }
        for name, value in quiet.items():
            setattr(litellm, name, value)
        for name in ("LiteLLM", "LiteLLM Proxy", "LiteLLM Router", "litellm"):
            logging.getLogger(name).setLevel(logging.CRITICAL)
        _module = litellm


def preload() -> None:
    """Start importing litellm in a daemon thread (no-op if already started or done)."""
    global _thread
    if _module is not None or _thread is not None:
        return
    _thread = threading.Thread(target=_import, name="hive-litellm-import", daemon=True)
    _thread.start()


def load() -> ModuleType:
    """The litellm module, importing it now if the background import has not finished."""
    if _module is None:
        if _thread is not None:
            _thread.join()
        _import()
    if _error is not None:
        raise _error
    assert _module is not None
    return _module


def loaded() -> ModuleType | None:
    """The litellm module if it is already imported, else None (never blocks)."""
    return _module
