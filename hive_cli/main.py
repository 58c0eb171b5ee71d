"""The ``hive`` entry point. ``--version`` answers before anything heavy is imported."""

from __future__ import annotations

import sys


def main() -> None:
    """Run hive with ``sys.argv``."""
    if sys.argv[1:] in (["--version"], ["-V"]):
        from engine import __version__

        sys.stdout.write(f"hive {__version__}\n")
        return
    from hive_cli.app import run_app

    run_app()
