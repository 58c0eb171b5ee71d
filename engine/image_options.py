"""The ``images`` section of the settings."""

from __future__ import annotations

from engine.config.validation import StrictRecord


class ImagesOptions(StrictRecord, frozen=True):
    """Images attached to a request (``@shot.png``, ``hive run --image``, read_file on an image)."""

    vision: dict[str, bool] = {}
    """Whether a model takes images, by model name (``openai/my-local-vlm: true``): over litellm's model table,
    which decides for the models it lists; a model neither names is sent no image."""
