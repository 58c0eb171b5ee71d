"""At most once a day: a stamp file in hive's data folder, whose modification time is the last pruning.

Pruning is housekeeping at a session's start; its cost must not come with every start. The stamp is
touched before the pruning runs, so two hives starting together do not both prune (the second one
sees a fresh stamp).
"""

from __future__ import annotations

import contextlib
import os
import time
from pathlib import Path

from engine.paths import user_data_dir
from engine.private_files import open_private_bytes, private_dir
from engine.stores.options import DAY


def stamp_path(store: str) -> Path:
    """The stamp of the store named ``store`` (``sessions``, ``checkpoints-<project>``, ``outputs-<project>``)."""
    return user_data_dir() / "prune-stamps" / f"prune-stamp-{store}"


def claim_daily(store: str, *, now: float | None = None) -> bool:
    """Whether the store is due (its stamp missing or a day old); when due, the stamp is set to now first."""
    stamp = stamp_path(store)
    moment = time.time() if now is None else now
    try:
        if moment - os.stat(stamp).st_mtime < DAY:
            return False
    except FileNotFoundError:
        pass
    except OSError:
        return False  # a stamp that cannot be judged: no housekeeping rather than housekeeping every time
    with contextlib.suppress(OSError):
        private_dir(stamp.parent)
        open_private_bytes(stamp, "a").close()
        os.utime(stamp, (moment, moment))
        return True
    return False
