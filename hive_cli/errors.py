"""Turn errors into one clear line on stderr and the documented exit status; tracebacks only with --debug."""

from __future__ import annotations

import sys
import traceback
from collections.abc import Iterator
from contextlib import contextmanager

import typer

from engine.errors import HiveError

EXIT_INTERRUPTED = 130


@contextmanager
def exit_on_error(debug: bool) -> Iterator[None]:
    """Run the body; map hive errors, interrupts and crashes to a message and an exit status."""
    try:
        yield
    except typer.Exit:
        raise
    except HiveError as error:
        if debug:
            traceback.print_exc()
        _say(f"hive: {error}")
        raise typer.Exit(error.exit_code) from None
    except KeyboardInterrupt:
        _say("hive: interrupted")
        raise typer.Exit(EXIT_INTERRUPTED) from None
    except Exception as error:
        if debug:
            traceback.print_exc()
        _say(f"hive: internal error: {type(error).__name__}: {error} (run with --debug for the traceback)")
        raise typer.Exit(1) from None


def _say(message: str) -> None:
    sys.stderr.write(message + "\n")
    sys.stderr.flush()
