"""``hive models [MODEL]``: what hive learned about the models local servers serve (their windows, so far).

The records live in the user cache folder (``engine.model.served_facts``); this reads them and asks no
server. Nothing here imports litellm.
"""

from __future__ import annotations

from engine.model.served_facts import ServedModel, all_facts
from hive_cli.terminal_text import echo


def show_models(model: str | None) -> int:
    """Print the records (those of ``model`` only when given, with or without its provider prefix); exit status."""
    records = [r for r in all_facts() if model is None or _names(r, model)]
    if not records:
        which = f" about {model}" if model else ""
        echo(f"hive has learned nothing{which} yet: it asks a local server once, on the first run that uses it.")
        return 0
    for record in records:
        echo(f"{record.model} at {record.api_base}")
        for line in describe(record):
            echo(f"  {line}")
    return 0


def describe(record: ServedModel) -> list[str]:
    """The record's facts, one line each."""
    if record.window:
        window = f"window: {record.window:,} tokens (from {record.window_source or 'the server'})"
    else:
        window = "window: the server did not say (hive uses the context_window setting, the model table or 32,768)"
    lines = [window]
    if record.window_note:
        lines.append(f"note: {record.window_note}")
    if record.learned_at:
        lines.append(f"learned: {record.learned_at}")
    return lines


def _names(record: ServedModel, model: str) -> bool:
    return model in (record.model, record.model.split("/", 1)[-1])
