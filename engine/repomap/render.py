"""The map as text: each file once, then its best definitions (line and signature), within a token budget."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from engine.repomap.rank import Ranked

TokenCount = Callable[[str], int]


def outline(ranked: Sequence[Ranked], count: int) -> str:
    """The ``count`` best of ``ranked`` as an outline: files in the order of their best definition, each
    file's definitions best first."""
    return "\n".join(_outline_lines(ranked[:count]))


def _outline_lines(ranked: Sequence[Ranked]) -> list[str]:
    files: dict[str, list[Ranked]] = {}
    for item in ranked:
        files.setdefault(item.path, []).append(item)
    lines = []
    for path, items in files.items():
        lines.append(f"{path}:")
        lines += [f"  {item.definition.line}: {item.definition.signature}" for item in items]
    return lines


def fitting_outline(ranked: Sequence[Ranked], budget: int, tokens: TokenCount) -> tuple[str, int]:
    """The longest outline of the best definitions that takes at most ``budget`` tokens, and how many it shows.

    Each line is counted once (a file's line when its first definition joins): the outline of the first
    ``n`` definitions costs about the sum of its lines and a token per line break. The whole outline is
    then counted, and definitions dropped from the end while it is over the budget.
    """
    used = 0
    count = 0
    seen: set[str] = set()
    for item in ranked:
        cost = tokens(f"  {item.definition.line}: {item.definition.signature}") + 1
        if item.path not in seen:
            cost += tokens(f"{item.path}:") + 1
        if used + cost > budget:
            break
        seen.add(item.path)
        used += cost
        count += 1
    text = outline(ranked, count)
    while count and tokens(text) > budget:
        count -= 1
        text = outline(ranked, count)
    return text, count
