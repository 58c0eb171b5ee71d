"""Records that hold a secret never show it: not in their repr, nor in rich's pretty printing (tracebacks with locals)."""

from __future__ import annotations

from pathlib import Path

import pytest
from msgspec import Struct
from rich.pretty import pretty_repr

from engine.config.loader import Overrides
from engine.mcp.config import ServerConfig, WrittenEntry
from engine.model.client_settings import ModelSettings
from engine.model.resolve import ModelChoice
from engine.records import hiding
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
            url=f"https://mcp.example/?key={SECRET}",
            headers={"Authorization": SECRET},
            written=WrittenEntry(url="https://mcp.example/?key=${KEY}", headers={"Authorization": "${KEY}"}),
        ),
        ServerConfig(
            name="a",
            transport="stdio",
            source=Path("p.yaml"),
            command="srv",
            args=("--token", SECRET),
            written=WrittenEntry(command="srv", args=("--token", "${KEY}")),
        ),
    ],
    ids=lambda record: type(record).__name__,
)
def test_a_record_holding_a_secret_shows_its_other_fields_but_not_the_secret(record: Struct) -> None:
    shown = repr(record)
    assert SECRET not in shown and SECRET not in str(record)
    assert SECRET not in pretty_repr(record) and SECRET not in pretty_repr([record], max_width=20)
    assert shown.startswith(f"{type(record).__name__}(")
    assert ("gpt-4o" in shown) or ("example" in shown) or ("srv" in shown)


def test_a_hiding_record_reads_like_a_struct_less_the_hidden_fields() -> None:
    class Pair(Struct, frozen=True):
        left: int
        right: str

    class Hiding(Struct, frozen=True):
        left: int
        right: str
        __repr__, __rich_repr__ = hiding("right")

    class Showing(Struct, frozen=True):
        left: int
        __repr__, __rich_repr__ = hiding()

    assert repr(Pair(1, "x")) == "Pair(left=1, right='x')"
    assert repr(Hiding(1, "x")) == "Hiding(left=1)"
    assert repr(Showing(1)) == "Showing(left=1)"
    assert pretty_repr(Hiding(1, "x")) == "Hiding(left=1)"
