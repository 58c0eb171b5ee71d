"""Trusting a test's project as the person would (``hive trust --yes``), in the test's HIVE_HOME."""

from __future__ import annotations

from pathlib import Path


def trust(cwd: Path) -> None:
    """Record that the person trusts the project at ``cwd`` with its configuration as it is now."""
    from engine.trust.review import review, trust_project
    from engine.workspace import open_workspace

    trust_project(review(open_workspace(cwd)))
