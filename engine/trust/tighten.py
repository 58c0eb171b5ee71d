"""(temporary stub; replaced by the tighten work)"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from msgspec import Struct

Given = dict[str, Any]


class Ignored(Struct, frozen=True):
    key: str
    shown: str


def tighten_settings(project: Given, user: Given, root: Path, *, trusted: bool) -> tuple[Given, tuple[Ignored, ...]]:
    if trusted:
        return project, ()
    kept = {}
    ignored = []
    for key, value in project.items():
        if key in ("sandbox",) or (key == "mode" and value == "plan"):
            kept[key] = value
        else:
            ignored.append(Ignored(key, f"{key}: {value}"))
    return kept, tuple(ignored)


def loosenings(project: Given, user: Given, root: Path) -> tuple[Ignored, ...]:
    return tighten_settings(project, user, root, trusted=False)[1]
