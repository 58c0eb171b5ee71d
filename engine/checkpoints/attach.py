"""Checkpoints as a capability: the wrapper in the approved-call slot and the recorder as a turn observer."""

from __future__ import annotations

from engine.capabilities import BuildContext, Capability, SessionView
from engine.checkpoints.pruning import prune_daily
from engine.checkpoints.recorder import TurnRecorder
from engine.checkpoints.settle import settle
from engine.checkpoints.store import CheckpointStore
from engine.checkpoints.tree import TreeIndex
from engine.checkpoints.wrapper import CheckpointToolset
from engine.config.loader import SessionConfig
from engine.events import ROOT_AGENT, Event, RunFinished
from engine.run.loop import TurnObserver
from engine.tools.compose import ToolsetWrapper


class CheckpointCalls(Capability):
    """Snapshots what each approved call may change, into the turn the recorder opened."""

    def __init__(self, config: SessionConfig, recorder: TurnRecorder, index: TreeIndex) -> None:
        self.config = config
        self.recorder = recorder
        self.index = index

    def approved_call_wrappers(self, context: BuildContext) -> tuple[ToolsetWrapper, ...]:
        return (lambda inner: CheckpointToolset(inner, self.recorder, self.index, self.config.sandbox),)

    def for_child(self) -> Capability | None:
        return self


class Checkpoints(CheckpointCalls):
    """The wrapper, and the recorder that marks where turns begin.

    An agent built inside the session (a sub-agent) keeps the wrapper, not the observer: its calls
    then join the parent's turn, whose rounds alone mark where turns begin.
    """

    def turn_observers(self) -> tuple[TurnObserver, ...]:
        return (self.recorder,)

    def for_child(self) -> Capability | None:
        return CheckpointCalls(self.config, self.recorder, self.index)

    def observe(self, event: Event, session: SessionView) -> None:
        """The end of a run of the root agent ends the turn: it is no longer open to other hives."""
        if isinstance(event, RunFinished) and event.agent == ROOT_AGENT:
            self.recorder.close_turn()

    async def stop(self, session: SessionView) -> None:
        self.recorder.close_turn()
        self.index.close()


def checkpoints_for(config: SessionConfig) -> Checkpoints | None:
    """Checkpoints when ``checkpoints.enabled`` (the store pruned first, at most once a day), else None.

    A session that saves nothing (``persist`` off, as in embedded uses and tests) keeps no checkpoints.
    """
    options = config.checkpoints
    if not options.enabled or not config.persist:
        return None
    store = CheckpointStore.for_project(config.cwd)
    try:
        settle(store)  # a hive killed mid-command: its command's changes join its turn before anything else runs
        prune_daily(store, options)
    except OSError:
        pass  # housekeeping: a store that cannot be pruned still takes new checkpoints
    recorder = TurnRecorder(store, config.cwd, options.max_file_bytes)
    return Checkpoints(config, recorder, TreeIndex(store, options.max_file_bytes))
