"""Keeping a project's ``.hive/outputs/`` small: saved outputs over the age, count or size cap go, the oldest first.

Known by ``stat`` alone; only the ``*.log`` files hive names there are candidates. The folders are
opened without following links (a repository may make ``.hive`` a link to somewhere else), and every
file is removed relative to the folder opened, so nothing outside the project's own folder is touched.
"""

from __future__ import annotations

import contextlib
import os
import time
from collections.abc import Iterator
from pathlib import Path

from engine.paths import SCRATCH_DIR_NAME, project_root
from engine.scratch import data_scratch_dir
from engine.stores.caps import Caps, Entry, Verdict, choose
from engine.stores.options import StoresOptions
from engine.stores.stamp import claim_daily

OUTPUTS = "outputs"


def output_caps(options: StoresOptions) -> Caps:
    """The saved outputs' caps of the ``stores`` settings."""
    return Caps(
        keep_days=options.outputs_keep_days, max_count=options.outputs_max_count, max_bytes=options.outputs_max_bytes
    )


def prune_outputs(cwd: Path, caps: Caps, *, dry_run: bool = False, now: float | None = None) -> Verdict:
    """Remove the saved outputs of ``cwd``'s project over ``caps`` (none with ``dry_run``); what goes and stays.

    Both places an output is saved are pruned, each within the caps: the project's ``.hive/outputs/`` and
    the folder in hive's data folder that stands in for it when ``.hive`` is not a plain folder.
    """
    moment = time.time() if now is None else now
    root = project_root(cwd)
    removed: list[Entry] = []
    kept: list[Entry] = []
    for place in (
        _outputs_folder(root, (SCRATCH_DIR_NAME, OUTPUTS)),
        _outputs_folder(data_scratch_dir(root), (OUTPUTS,)),
    ):
        with place as folder:
            if folder is None:
                continue
            verdict = choose(_entries(folder), caps, moment, lambda entry: False)
            if not dry_run:
                for entry in verdict.removed:
                    with contextlib.suppress(FileNotFoundError):
                        os.unlink(entry.name, dir_fd=folder)
            removed.extend(verdict.removed)
            kept.extend(verdict.kept)
    return Verdict(removed=tuple(removed), kept=tuple(kept))


def prune_outputs_daily(cwd: Path, options: StoresOptions) -> Verdict | None:
    """:func:`prune_outputs` when the project's outputs were not pruned in the last day; None when they were."""
    from engine.checkpoints.store import project_key

    if not claim_daily(f"outputs-{project_key(cwd)}"):
        return None
    try:
        return prune_outputs(cwd, output_caps(options))
    except OSError:
        return None  # housekeeping: tried again another day


@contextlib.contextmanager
def _outputs_folder(root: Path, components: tuple[str, ...]) -> Iterator[int | None]:
    """``root`` joined with ``components`` opened (a descriptor), or None when missing or a component is a link."""
    try:
        top = os.open(root, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    except OSError:
        yield None
        return
    opened = [top]
    try:
        for component in components:
            opened.append(os.open(component, os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC, dir_fd=opened[-1]))
    except OSError:
        yield None
    else:
        yield opened[-1]
    finally:
        for descriptor in opened:
            os.close(descriptor)


def _entries(folder: int) -> list[Entry]:
    entries = []
    with os.scandir(folder) as found:
        for item in found:
            if not item.name.endswith(".log") or item.name.startswith("."):
                continue
            with contextlib.suppress(OSError):
                info = item.stat(follow_symlinks=False)
                if item.is_file(follow_symlinks=False):
                    entries.append(Entry(name=item.name, used=info.st_mtime, size=info.st_size))
    return entries
