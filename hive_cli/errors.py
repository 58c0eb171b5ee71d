"""Turn errors into one clear line on stderr and the documented exit status; tracebacks only with --debug."""

from __future__ import annotations

import os
import sys
import traceback
from collections.abc import Iterator
from contextlib import contextmanager

from click.exceptions import Exit

from engine.disk_full import describe_full
from engine.errors import HiveError
from hive_cli.terminal_text import echo

EXIT_INTERRUPTED = 130


@contextmanager
def exit_on_error(debug: bool) -> Iterator[None]:
    """Run the body; map hive errors, interrupts and crashes to a message and an exit status."""
    try:
        yield
    except Exit:
        raise
    except HiveError as error:
        if debug:
            traceback.print_exc()
        _say(f"hive: {error}")
        raise Exit(error.exit_code) from None
    except KeyboardInterrupt:
        _say("hive: interrupted")
        raise Exit(EXIT_INTERRUPTED) from None
    except BrokenPipeError:
        # The reader went away (``hive ... | head``): nothing more to say to it, and nothing went wrong.
        _silence_stdout()
        raise Exit(0) from None
    except Exception as error:
        if debug:
            traceback.print_exc()
        full = describe_full(error)  # a full disk met outside hive's own writers: still not an internal error
        _say(
            f"hive: {full}"
            if full
            else f"hive: internal error: {type(error).__name__}: {error} (run with --debug for the traceback)"
        )
        raise Exit(1) from None


def _silence_stdout() -> None:
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, sys.stdout.fileno())


def _say(message: str) -> None:
    echo(message, err=True)  # a message may quote a server's answer or a file's name
