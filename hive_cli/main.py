"""The ``hive`` entry point. ``--version`` answers before anything heavy is imported."""

from __future__ import annotations

import logging
import os
import sys
from typing import NoReturn


def main() -> None:
    """Run hive with ``sys.argv``."""
    if sys.stdout is None:
        _stdout_closed()
    _keep_stderr_harmless()
    if sys.argv[1:] in (["--version"], ["-V"]):
        from engine import __version__
        from hive_cli.terminal_text import echo

        echo(f"hive {__version__}")
        return
    from engine.own_variables import set_for_this_process
    from hive_cli import collection

    # pydantic would load every installed package's plugin into hive, where it would see what hive and
    # its SDKs validate with pydantic (MCP entries and messages, provider SDK responses).
    set_for_this_process("PYDANTIC_DISABLE_PLUGINS", "__all__")
    collection.pause()  # resumed once the command has started (hive_cli.collection says why)
    from hive_cli.app import run_app

    try:
        run_app()
    except SystemExit as exit_request:
        if "litellm" in sys.modules:
            _exit_without_teardown(exit_request.code)
        raise


def _stdout_closed() -> NoReturn:
    """Refuse to start without a standard output (``hive ... >&-``): one line on stderr, exit 1.

    Running anyway would lose the answer, and the first file hive opened would take descriptor 1, so
    whatever a command printed would land in it.
    """
    from hive_cli.terminal_text import echo

    echo("hive: standard output is closed", err=True)
    os._exit(1)


def _keep_stderr_harmless() -> None:
    """Standard error carries only diagnostics: when it is closed, full or its reader is gone, hive still
    finishes its work and exits with its own status.

    A closed descriptor 2 gets ``/dev/null`` first, so that no file hive opens later takes it and
    receives the messages.
    """
    if sys.stderr is None:
        held = os.open(os.devnull, os.O_WRONLY)
        sys.stderr = os.fdopen(held, "w", encoding="utf-8", errors="backslashreplace")
        return
    from hive_cli.terminal_text import QuietWhenGone

    sys.stderr = QuietWhenGone(sys.stderr)


def _exit_without_teardown(code: object) -> None:
    """Exit now, skipping the interpreter's teardown of litellm's ~3,000 modules (about a second).

    Everything hive writes is flushed or closed before this point; here the standard streams and
    logging are flushed too.
    """
    status = code if isinstance(code, int) else (0 if code is None else 1)
    if isinstance(code, str):
        from hive_cli.terminal_text import echo

        echo(code, err=True)
    logging.shutdown()
    for stream in (sys.stdout, sys.stderr):
        if stream is None:  # a standard stream the parent closed
            continue
        try:
            stream.flush()
        except (OSError, ValueError):
            pass
    os._exit(status)
