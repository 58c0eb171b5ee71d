"""Which models take images: the settings say first (``images.vision``), then litellm's model table.

A model neither names is taken not to: an image is then left out with a message, rather than sent to a
model (or a local server) that would fail the whole request on it.
"""

from __future__ import annotations

from collections.abc import Mapping

from engine.model.pricing import model_entry


def accepts_images(model: str, overrides: Mapping[str, bool] | None = None) -> bool:
    """Whether ``model`` takes image parts: the setting for it (by its full name or without the provider
    prefix), else the table's ``supports_vision``, else False."""
    for name in (model, model.split("/", 1)[-1]):
        if overrides and name in overrides:
            return overrides[name]
    entry = model_entry(model)
    return bool(entry and entry.get("supports_vision"))


def no_vision_message(model: str) -> str:
    """What the person (or the model, for read_file) is told when ``model`` does not take images."""
    return (
        f"the model {model} does not take images (hive's model table says so, or does not know it); "
        f"if it does, set images.vision: {{{model}: true}} in the settings"
    )
