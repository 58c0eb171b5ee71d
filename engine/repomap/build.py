"""The map of a folder: list its files, take each file's tags from the cache or parse it, rank, render."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from msgspec import Struct

from engine.repomap.cache import cache_path, content_key, load_tags, save_tags
from engine.repomap.files import Readable, candidate_files, read_source, readable_files
from engine.repomap.languages import GrammarMissing, LanguageSpec
from engine.repomap.rank import rank_definitions
from engine.repomap.render import TokenCount, fitting_outline
from engine.repomap.tags import FileTags, extract_tags

DEFAULT_MAX_FILES = 5000
"""Files one map reads at most (the first in path order)."""


class MappedFiles(Struct, frozen=True, kw_only=True):
    """The tags of a folder's files, and what it took to get them."""

    tags: dict[str, FileTags]
    """Root-relative path -> its tags."""
    parsed: int
    """Files parsed on this run (their content was not in the cache)."""
    reused: int
    """Files whose tags came from the cache."""
    skipped: int
    """Files left out: too large, binary, unreadable, or of a language whose grammar is missing."""
    limited: bool = False
    """The folder had more files than the map reads."""


class RepoMap(Struct, frozen=True, kw_only=True):
    """A rendered map."""

    text: str
    shown: int
    """Definitions shown."""
    total: int
    """Definitions found."""
    files: int
    """Files the definitions were looked for in."""


def map_files(
    root: Path,
    readable: Readable,
    *,
    cache_dir: Path | None = None,
    max_files: int = DEFAULT_MAX_FILES,
    candidates: Iterable[tuple[str, LanguageSpec]] | None = None,
) -> MappedFiles:
    """The tags of every file under ``root`` (a real path) the map reads and ``readable`` allows.

    ``candidates`` is :func:`~engine.repomap.files.candidate_files` of ``root`` when the caller listed them
    already. Tags come from the cache when the file's content is there; the cache is written back (without
    the entries this run did not use) when anything was parsed or dropped. A cache that cannot be written
    only costs the next run its parsing.
    """
    kept_at = cache_path(root, cache_dir)
    kept = load_tags(kept_at, root)
    used: dict[str, FileTags] = {}
    tags: dict[str, FileTags] = {}
    parsed = skipped = 0
    listing = candidate_files(root) if candidates is None else candidates
    listed = list(readable_files(listing, readable, max_files + 1))
    for relative, spec in listed[:max_files]:
        data = read_source(root, relative)
        if data is None:
            skipped += 1
            continue
        key = content_key(spec.name, data)
        found = kept.get(key) or used.get(key)
        if found is None:
            try:
                found = extract_tags(spec, data)
            except GrammarMissing:
                skipped += 1
                continue
            parsed += 1
        used[key] = tags[relative] = found
    if parsed or len(used) != len(kept):
        try:
            save_tags(kept_at, root, used)
        except OSError:
            pass
    reused = len(tags) - parsed
    return MappedFiles(tags=tags, parsed=parsed, reused=reused, skipped=skipped, limited=len(listed) > max_files)


def render_map(mapped: MappedFiles, budget: int, tokens: TokenCount, hidden: Iterable[str] = ()) -> RepoMap:
    """The map of ``mapped`` within ``budget`` tokens, leaving out (and not counting the references of) ``hidden``."""
    left_out = frozenset(hidden)
    files = {path: tags for path, tags in mapped.tags.items() if path not in left_out}
    ranked = rank_definitions(files)
    text, shown = fitting_outline(ranked, budget, tokens)
    return RepoMap(text=text, shown=shown, total=len(ranked), files=len(files))
