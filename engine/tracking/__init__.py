"""Tool-call tracking: progress events while tools run, a scope tree, and per-request usage reports."""

from engine.tracking.calls import call_tool
from engine.tracking.scopes import TrackingObserver, TrackingOptions
from engine.tracking.tracker import Tracker

__all__ = ["Tracker", "TrackingObserver", "TrackingOptions", "call_tool"]
