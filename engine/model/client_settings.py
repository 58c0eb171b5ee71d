"""Where and how to reach a model: the settings every model client takes."""

from __future__ import annotations

from msgspec import Struct, field

from engine.config.defaults import DEFAULT_REQUEST_TIMEOUT_S
from engine.model.failures import RetryPolicy
from engine.records import hiding


class ModelSettings(Struct, frozen=True, kw_only=True):
    """Where and how to reach a model."""

    model: str
    """A litellm model string, e.g. ``openai/gpt-4o`` or ``anthropic/claude-sonnet-4-5``."""
    api_base: str | None = None
    api_key: str | None = None
    model_source: str = ""
    """Where the model was chosen (``--model``, ``HIVE_MODEL``, ...), to name it in a configuration error."""
    timeout_s: float = DEFAULT_REQUEST_TIMEOUT_S
    """Overall deadline for one try at a model call: connect, first byte and the whole streamed body."""
    stream_idle_timeout_s: float = 120.0
    """Give up on a stream that sends nothing for this long."""
    streaming: bool = True
    """Stream replies; False asks for whole replies (for servers that stream badly)."""
    retry: RetryPolicy = field(default_factory=RetryPolicy)

    __repr__, __rich_repr__ = hiding("api_key")
