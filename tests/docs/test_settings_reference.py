"""docs/settings.md's reference is what the settings' own records say (scripts/settings_reference.py)."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import msgspec

from engine.config.settings import SettingsFile
from scripts.settings_reference import DOCS_PAGE, page_with_reference, reference

REPOSITORY = Path(__file__).resolve().parents[2]


def rows(markdown: str) -> dict[str, list[str]]:
    """The reference's table rows by key: type, default, meaning (cells split on unescaped bars)."""
    found = {}
    for line in markdown.splitlines():
        if line.startswith("| `"):
            cells = [cell.strip() for cell in re.split(r"(?<!\\)\|", line)[1:-1]]
            found[cells[0].strip("`")] = cells[1:]
    return found


def check(page: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "scripts/settings_reference.py", "--check", "--page", str(page)],
        cwd=REPOSITORY,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


def test_the_settings_page_holds_the_reference_the_records_give() -> None:
    page = DOCS_PAGE.read_text(encoding="utf-8")
    assert page_with_reference(page) == page, "docs/settings.md is stale: run python scripts/settings_reference.py"
    assert check(DOCS_PAGE).returncode == 0


def test_every_key_is_in_the_reference_with_the_default_the_loader_gives() -> None:
    shown = rows(reference())
    defaults = msgspec.json.decode(msgspec.json.encode(SettingsFile()))
    assert "hooks[].command" in shown  # a list of records: its entries' keys, no default of its own
    for section, value in defaults.items():
        if section == "hooks":
            continue
        given = value if isinstance(value, dict) else {None: value}
        for key, default in given.items():
            name = section if key is None else f"{section}.{key}"
            assert name in shown, f"{name} is not in the reference"
            assert msgspec.json.decode(shown[name][1].strip("`")) == default, name
    assert shown["hooks[].event"][1] == "required"
    assert shown["webhooks.endpoints[].url"][1] == "required"


def test_a_page_that_drifted_is_refused_and_rewritten(tmp_path: Path) -> None:
    drifted = tmp_path / "settings.md"
    text = DOCS_PAGE.read_text(encoding="utf-8")
    drifted.write_text(text.replace("| `max_turns` | integer (> 0) | `50` |", "| `max_turns` | integer (> 0) | `40` |"))
    assert drifted.read_text() != text

    refused = check(drifted)
    assert refused.returncode == 1 and "is out of date" in refused.stderr

    subprocess.run(
        [sys.executable, "scripts/settings_reference.py", "--page", str(drifted)], cwd=REPOSITORY, check=True
    )
    assert drifted.read_text() == text
