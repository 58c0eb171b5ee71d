"""Attaching checkpoints to a session: the wrapper in the approved-call slot and the recorder as a turn observer."""

from __future__ import annotations

from msgspec.structs import replace

from engine.agent import Extensions
from engine.checkpoints.recorder import TurnRecorder
from engine.checkpoints.store import CheckpointStore
from engine.checkpoints.tree import TreeIndex
from engine.checkpoints.wrapper import CheckpointToolset
from engine.config import SessionConfig
from engine.tools.base import Toolset


def with_checkpoints(config: SessionConfig, extensions: Extensions | None) -> Extensions:
    """``extensions`` plus checkpoints when ``checkpoints.enabled`` (old checkpoints are pruned first).

    A session that saves nothing (``persist`` off, as in embedded uses and tests) keeps no checkpoints.
    An agent built inside the session (a sub-agent) should reuse the wrapper, not the observer: its
    calls then join the parent's turn, whose rounds alone mark where turns begin.
    """
    extensions = extensions or Extensions()
    options = config.checkpoints
    if not options.enabled or not config.persist:
        return extensions
    store = CheckpointStore.for_project(config.cwd)
    try:
        store.prune(options.keep_days)
    except OSError:
        pass  # pruning is housekeeping: a store that cannot be pruned still takes new checkpoints
    recorder = TurnRecorder(store, config.cwd, options.max_file_bytes)
    index = TreeIndex(store, options.max_file_bytes)

    def wrap(inner: Toolset) -> Toolset:
        return CheckpointToolset(inner, recorder, index, config.sandbox)

    return replace(
        extensions,
        approved_call_wrappers=(*extensions.approved_call_wrappers, wrap),
        turn_observers=(*extensions.turn_observers, recorder),
    )
