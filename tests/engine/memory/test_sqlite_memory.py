"""The SQLite memory store: BM25 ranking, scopes per user and per project, persistence, and the embedding path."""

from __future__ import annotations

import math
import sqlite3
from collections.abc import Sequence
from pathlib import Path

import pytest

from engine.errors import UserError
from engine.memory import store as store_module
from engine.memory.options import MemoryOptions
from engine.memory.provider import memory_for
from engine.memory.store import SqliteMemory


def store(tmp_path: Path, project: str = "alpha", user: str = "ada", **kwargs: object) -> SqliteMemory:
    return SqliteMemory(tmp_path / "memory.sqlite3", project=tmp_path / project, user=user, **kwargs)  # type: ignore[arg-type]


def texts(memories: Sequence[object]) -> list[str]:
    return [memory.text for memory in memories]  # type: ignore[attr-defined]


def test_recall_ranks_the_best_match_first_and_leaves_out_what_does_not_match(tmp_path: Path) -> None:
    memory = store(tmp_path)
    memory.remember("The release checklist lives in docs/RELEASE.md")
    memory.remember("Run the database migrations before the integration tests", tags=["database"])
    memory.remember("The database is PostgreSQL 16")
    found = memory.recall("database migrations")
    assert texts(found) == ["Run the database migrations before the integration tests", "The database is PostgreSQL 16"]
    assert found[0].score > found[1].score > 0
    assert memory.recall("kubernetes") == [] and memory.recall("?!") == []


def test_recall_stems_words_and_searches_tags(tmp_path: Path) -> None:
    memory = store(tmp_path)
    memory.remember("Use tabs in the Makefile", tags=["formatting"])
    assert texts(memory.recall("tab")) == ["Use tabs in the Makefile"]
    assert memory.recall("formatting")[0].tags == ("formatting",)


def test_limit_caps_the_results(tmp_path: Path) -> None:
    memory = store(tmp_path)
    for n in range(5):
        memory.remember(f"note {n} about caching")
    assert len(memory.recall("caching", limit=3)) == 3


def test_project_memories_stay_in_their_project_and_user_memories_follow_the_user(tmp_path: Path) -> None:
    alpha, beta = store(tmp_path, "alpha"), store(tmp_path, "beta")
    alpha.remember("alpha deploys with ansible")
    alpha.remember("ada prefers small commits about ansible too", scope="user")
    assert texts(beta.recall("ansible")) == ["ada prefers small commits about ansible too"]
    assert sorted(texts(alpha.recall("ansible"))) == [
        "ada prefers small commits about ansible too",
        "alpha deploys with ansible",
    ]
    assert texts(alpha.recall("ansible", scope="project")) == ["alpha deploys with ansible"]
    assert [m.scope for m in alpha.recall("ansible", scope="user")] == ["user"]


def test_another_user_sees_and_forgets_nothing_of_ada(tmp_path: Path) -> None:
    ada, bob = store(tmp_path, user="ada"), store(tmp_path, user="bob")
    kept = ada.remember("the staging password rotates monthly", scope="user")
    assert bob.recall("staging password") == []
    assert bob.forget(kept.id) is False
    assert texts(ada.recall("staging")) == ["the staging password rotates monthly"]


def test_forget_deletes_from_the_store_and_the_index(tmp_path: Path) -> None:
    memory = store(tmp_path)
    gone = memory.remember("obsolete: the api lives on port 8080")
    assert memory.forget(gone.id) is True and memory.forget(gone.id) is False
    assert memory.recall("api port") == []


def test_a_project_memory_cannot_be_forgotten_from_another_project(tmp_path: Path) -> None:
    kept = store(tmp_path, "alpha").remember("alpha uses poetry")
    assert store(tmp_path, "beta").forget(kept.id) is False
    assert texts(store(tmp_path, "alpha").recall("poetry")) == ["alpha uses poetry"]


def test_memories_persist_across_sessions_in_a_wal_file(tmp_path: Path) -> None:
    store(tmp_path).remember("the linter is ruff")
    assert texts(store(tmp_path).recall("linter")) == ["the linter is ruff"]
    with sqlite3.connect(tmp_path / "memory.sqlite3") as db:
        assert db.execute("PRAGMA journal_mode").fetchone() == ("wal",)


def test_nothing_is_opened_before_the_first_call(tmp_path: Path) -> None:
    store(tmp_path)
    assert not (tmp_path / "memory.sqlite3").exists()


def test_an_unusable_store_is_one_clear_error(tmp_path: Path) -> None:
    (tmp_path / "memory.sqlite3").write_text("not a database")
    with pytest.raises(UserError, match="memory store"):
        store(tmp_path).recall("anything")


def test_the_default_store_is_in_the_user_data_dir_scoped_to_the_repository_root(
    tmp_path: Path, isolated_hive: Path
) -> None:
    (tmp_path / "repo" / ".git").mkdir(parents=True)
    (tmp_path / "repo" / "src").mkdir()
    memory = memory_for(MemoryOptions(enabled=True), tmp_path / "repo" / "src")
    assert isinstance(memory, SqliteMemory)
    assert memory.path == isolated_hive / "data" / "memory.sqlite3"
    assert memory.project == str((tmp_path / "repo").resolve())
    outside = memory_for(MemoryOptions(enabled=True, path=tmp_path / "m.db"), tmp_path)
    assert isinstance(outside, SqliteMemory) and outside.path == tmp_path / "m.db"
    assert outside.project == str(tmp_path.resolve())


VOCABULARY = ("deploy", "test", "database", "style")


class WordCounts:
    """A deterministic embedder: one dimension per vocabulary word. Records what it was asked to embed."""

    def __init__(self) -> None:
        self.asked: list[list[str]] = []

    def __call__(self, texts: Sequence[str]) -> list[list[float]]:
        self.asked.append(list(texts))
        return [[float(text.lower().count(word)) for word in VOCABULARY] for text in texts]


def test_with_an_embedder_recall_ranks_by_cosine_similarity(tmp_path: Path) -> None:
    embed = WordCounts()
    memory = store(tmp_path, embedder=embed, embedding_model="counts-1")
    memory.remember("database database test")
    memory.remember("deploy style")
    found = memory.recall("database")
    assert texts(found) == ["database database test", "deploy style"]
    assert found[0].score == 2 / math.sqrt(5) and found[1].score == 0.0
    assert embed.asked == [["database database test"], ["deploy style"], ["database"]]


def test_memories_without_a_vector_of_the_model_are_embedded_once_at_recall(tmp_path: Path) -> None:
    store(tmp_path).remember("test the deploy")  # kept without an embedding model
    embed = WordCounts()
    memory = store(tmp_path, embedder=embed, embedding_model="counts-1")
    assert texts(memory.recall("deploy")) == ["test the deploy"]
    assert texts(memory.recall("deploy")) == ["test the deploy"]
    assert embed.asked == [["test the deploy"], ["deploy"], ["deploy"]]


def test_a_relative_store_path_is_refused_in_the_settings() -> None:
    with pytest.raises(ValueError, match="absolute"):
        MemoryOptions(path=Path("notes/memory.sqlite3"))
    assert MemoryOptions(path=Path("~/m.sqlite3")).path == Path("~/m.sqlite3")


def test_recall_ranks_a_querys_rare_words_and_only_the_newest_matches_of_common_ones(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(store_module, "RANKED_MATCHES", 10)  # the bound, small enough to pass with a few notes
    memory, other = store(tmp_path), store(tmp_path, project="beta")
    memory.remember("parser parser parser: the parser notes of the first week")  # the best match, and the oldest
    for n in range(12):
        other.remember(f"parser note {n} of another project")  # newer, never in alpha's scope
        memory.remember(f"a newer parser note {n}")

    common = memory.recall("parser", limit=3)
    rare = memory.recall("parser first week", limit=1)

    assert texts(common) and all(m.text.startswith("a newer parser note") for m in common)
    assert texts(rare) == ["parser parser parser: the parser notes of the first week"]


def test_a_query_of_common_words_only_gives_the_newest_notes_holding_all_then_any(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(store_module, "RANKED_MATCHES", 2)  # every word below is in more notes than this
    memory = store(tmp_path)
    memory.remember("cache cache cache cache: the cache notes")  # the best match by BM25, and the oldest
    memory.remember("parser and cache, together")
    for n in range(3):
        memory.remember(f"cache note {n}")
        memory.remember(f"parser note {n}")
    memory.remember("cache with the parser, newest of both")

    found = texts(memory.recall("parser cache", limit=4))

    assert found == [
        "cache with the parser, newest of both",
        "parser and cache, together",
        "parser note 2",
        "cache note 2",
    ]
