"""litellm's model table, looked up one entry at a time: what a run looked up is read back by the next run."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from engine.model.model_table import LOOKUPS_FILE, entry, keep_lookups, table_path, whole_table
from engine.model.pricing import model_entry
from engine.paths import user_cache_dir

# A later run, in its own process (with the same HIVE_HOME), as the hive program sets it up.
NEXT_RUN = """
import json, sys
from engine.model.model_table import keep_lookups
from engine.model.pricing import model_entry
from engine.paths import user_cache_dir
keep_lookups(user_cache_dir)
print(json.dumps(model_entry(sys.argv[1])))
"""


@pytest.fixture(autouse=True)
def kept_in_the_cache_folder() -> Iterator[None]:
    keep_lookups(user_cache_dir)
    yield
    keep_lookups(None)


def next_run_sees(model: str) -> object:
    done = subprocess.run(
        [sys.executable, "-c", NEXT_RUN, model], capture_output=True, text=True, env=dict(os.environ), check=True
    )
    return json.loads(done.stdout)


def lookups_file() -> Path:
    return user_cache_dir() / LOOKUPS_FILE


def test_an_entry_looked_up_is_the_tables_and_is_kept_with_the_names_the_table_lacks() -> None:
    assert model_entry("openai/gpt-4o") == whole_table()["gpt-4o"]
    saved = json.loads(lookups_file().read_text(encoding="utf-8"))
    assert saved["entries"]["gpt-4o"] == whole_table()["gpt-4o"]
    assert saved["entries"]["openai/gpt-4o"] is None  # not listed under its prefixed name
    assert entry("no-such-model") is None
    assert json.loads(lookups_file().read_text(encoding="utf-8"))["entries"]["no-such-model"] is None


def test_the_next_run_reads_what_this_one_looked_up_instead_of_the_table() -> None:
    assert model_entry("gpt-4o-mini") is not None
    saved = json.loads(lookups_file().read_text(encoding="utf-8"))
    saved["entries"]["gpt-4o-mini"] = {**saved["entries"]["gpt-4o-mini"], "input_cost_per_token": 123.0}
    lookups_file().write_text(json.dumps(saved), encoding="utf-8")

    seen = next_run_sees("gpt-4o-mini")
    assert isinstance(seen, dict) and seen["input_cost_per_token"] == 123.0


def test_lookups_saved_for_another_table_file_or_broken_are_not_used() -> None:
    real = whole_table()["gpt-4o"]["input_cost_per_token"]
    path = table_path()
    assert path is not None
    other_table = {"path": str(path), "size": path.stat().st_size + 1, "mtime_ns": path.stat().st_mtime_ns}
    lookups_file().parent.mkdir(parents=True, exist_ok=True)
    lookups_file().write_text(
        json.dumps({"table": other_table, "entries": {"gpt-4o": {"input_cost_per_token": 123.0}}}), encoding="utf-8"
    )
    assert next_run_sees("gpt-4o")["input_cost_per_token"] == real  # type: ignore[index]

    lookups_file().write_text("{not json", encoding="utf-8")
    assert next_run_sees("gpt-4o")["input_cost_per_token"] == real  # type: ignore[index]
    assert json.loads(lookups_file().read_text(encoding="utf-8"))["entries"]["gpt-4o"]["input_cost_per_token"] == real


def test_a_host_that_keeps_no_lookups_writes_nothing() -> None:
    keep_lookups(None)
    assert model_entry("gpt-4o") == whole_table()["gpt-4o"]
    assert not lookups_file().exists()
