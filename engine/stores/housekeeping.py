"""A session's start keeps the stores small: sessions and the project's saved outputs, each at most once a day."""

from __future__ import annotations

from collections.abc import Collection

from engine.config.loader import SessionConfig
from engine.paths import user_data_dir
from engine.sessions.pruning import prune_sessions_daily
from engine.stores.outputs import prune_outputs_daily


def keep_stores_small(config: SessionConfig, *, keep: Collection[str] = ()) -> None:
    """Prune the sessions (never those in use, nor ``keep``) and ``config.cwd``'s outputs, when each is due.

    Each store's stamp is checked first (one ``stat``): a start the same day as the last pruning costs nothing more.
    """
    if not config.persist:
        return  # an embedded or test session keeps nothing of its own, and leaves the person's stores alone
    prune_sessions_daily(user_data_dir() / "sessions", config.stores, keep=keep)
    prune_outputs_daily(config.cwd, config.stores)
