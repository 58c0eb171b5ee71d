"""Records that hold a secret never show it in their repr (logs, tracebacks, ``--debug`` output)."""

from __future__ import annotations

from pathlib import Path

import pytest
from msgspec import Struct

from engine.config import Overrides
from engine.mcp.config import ServerConfig
from engine.model.client_settings import ModelSettings
from engine.model.resolve import ModelChoice
from engine.records import repr_without
from engine.webhooks.targets import Target

SECRET = "sk-live-do-not-show"


@pytest.mark.parametrize(
    "record",
    [
        Overrides(model="openai/gpt-4o", api_key=SECRET),
        ModelSettings(model="openai/gpt-4o", api_key=SECRET),
        ModelChoice(model="openai/gpt-4o", api_key=SECRET),
        Target(url="https://hooks.example/x", secret=SECRET),
        ServerConfig(name="s", transport="stdio", source=Path("p.yaml"), command="srv", env={"TOKEN": SECRET}),
        ServerConfig(
            name="h",
            transport="http",
            source=Path("p.yaml"),
            url="https://mcp.example",
            headers={"Authorization": SECRET},
        ),
    ],
    ids=lambda record: type(record).__name__,
)
def test_a_record_holding_a_secret_shows_its_other_fields_but_not_the_secret(record: Struct) -> None:
    shown = repr(record)
    assert SECRET not in shown and SECRET not in str(record)
    assert shown.startswith(f"{type(record).__name__}(")
    assert ("gpt-4o" in shown) or ("example" in shown) or ("srv" in shown)


def test_repr_without_reads_like_the_struct_repr_less_the_hidden_fields() -> None:
    class Pair(Struct, frozen=True):
        left: int
        right: str

    assert repr_without(Pair(1, "x")) == repr(Pair(1, "x")) == "Pair(left=1, right='x')"
    assert repr_without(Pair(1, "x"), "right") == "Pair(left=1)"
