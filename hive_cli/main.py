"""The ``hive`` entry point. ``--version`` answers before anything heavy is imported."""

from __future__ import annotations

import logging
import os
import sys


def main() -> None:
    """Run hive with ``sys.argv``."""
    if sys.argv[1:] in (["--version"], ["-V"]):
        from engine import __version__

        sys.stdout.write(f"hive {__version__}\n")
        return
    from hive_cli.app import run_app

    try:
        run_app()
    except SystemExit as exit_request:
        if "litellm" in sys.modules:
            _exit_without_teardown(exit_request.code)
        raise


def _exit_without_teardown(code: object) -> None:
    """Exit now, skipping the interpreter's teardown of litellm's ~3,000 modules (about a second).

    Everything hive writes is flushed or closed before this point; here the standard streams and
    logging are flushed too.
    """
    status = code if isinstance(code, int) else (0 if code is None else 1)
    if isinstance(code, str):
        sys.stderr.write(code + "\n")
    logging.shutdown()
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):
            pass
    os._exit(status)
