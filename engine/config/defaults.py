"""Defaults that several layers share, each written once. Standard library only.

Every other default lives as the default of its settings field (``engine.config.settings`` and the options
models of each capability), which is the one source the configuration loader reads.
"""

from __future__ import annotations

DEFAULT_MAX_TURNS = 50
"""Model turns per run before it stops with ``max_turns``."""
DEFAULT_REQUEST_TIMEOUT_S = 600.0
"""Overall limit, in seconds, for one model call."""
