"""The repository map of a small multi-language project: what it names, in which order, within budget, and the cache."""

from __future__ import annotations

from pathlib import Path

from engine.context.tokens import counter_for
from engine.repomap.build import map_files, render_map
from engine.repomap.cache import cache_path
from tests.support.repo_map_fixture import FILES, SECRET, SECRET_DEFINITION, write_project

TOKENS = counter_for("").text


def everything(relative: str) -> bool:
    return True


def test_the_map_names_the_main_definitions_of_each_language_within_budget(tmp_path: Path) -> None:
    root = write_project(tmp_path).resolve()
    mapped = map_files(root, everything, cache_dir=tmp_path / "cache")
    repo_map = render_map(mapped, 1024, TOKENS)

    assert set(mapped.tags) == set(FILES)
    for name in (
        "class OrderBook",
        "def load_orders",
        "interface PriceQuote",
        "function fetchQuote",
        "class QuoteView",
    ):
        assert name in repo_map.text
    assert "type OrderServer struct" in repo_map.text and "func NewOrderServer()" in repo_map.text
    assert repo_map.shown == repo_map.total and TOKENS(repo_map.text) <= 1024


def test_the_most_used_definition_comes_first(tmp_path: Path) -> None:
    root = write_project(tmp_path).resolve()
    repo_map = render_map(map_files(root, everything, cache_dir=tmp_path / "cache"), 1024, TOKENS)
    lines = repo_map.text.splitlines()

    assert lines[:2] == ["store/models.py:", "  1: class OrderBook:"]
    assert lines.index("  3: export function fetchQuote(book: OrderBook): PriceQuote {") < lines.index(
        "  2: export class QuoteView {"
    )


def test_a_small_budget_keeps_the_best_ranked_definitions_only(tmp_path: Path) -> None:
    root = write_project(tmp_path).resolve()
    mapped = map_files(root, everything, cache_dir=tmp_path / "cache")
    small = render_map(mapped, 64, TOKENS)

    assert 0 < small.shown < small.total and TOKENS(small.text) <= 64
    assert small.text.startswith("store/models.py:\n  1: class OrderBook:")


def test_a_second_run_parses_only_the_files_that_changed(tmp_path: Path) -> None:
    root = write_project(tmp_path / "project").resolve()
    cache = tmp_path / "cache"
    first = map_files(root, everything, cache_dir=cache)
    second = map_files(root, everything, cache_dir=cache)
    (root / "web/api.ts").write_text("export function fetchQuote() {}\nexport function cancelQuote() {}\n")
    third = map_files(root, everything, cache_dir=cache)

    assert (first.parsed, first.reused) == (len(FILES), 0)
    assert (second.parsed, second.reused) == (0, len(FILES))
    assert (third.parsed, third.reused) == (1, len(FILES) - 1)
    assert [d.name for d in third.tags["web/api.ts"].definitions] == ["fetchQuote", "cancelQuote"]
    assert cache_path(root, cache).is_file() and not any(p.suffix == ".msgpack" for p in root.rglob("*"))


def test_a_damaged_cache_is_rebuilt(tmp_path: Path) -> None:
    root = write_project(tmp_path / "project").resolve()
    cache = tmp_path / "cache"
    map_files(root, everything, cache_dir=cache)
    cache_path(root, cache).write_bytes(b"\x93not msgpack")

    again = map_files(root, everything, cache_dir=cache)

    assert again.parsed == len(FILES)
    assert map_files(root, everything, cache_dir=cache).parsed == 0


def test_a_file_the_rules_refuse_is_neither_read_nor_named(tmp_path: Path) -> None:
    root = write_project(tmp_path / "project", secret=True).resolve()
    mapped = map_files(root, lambda relative: relative != SECRET, cache_dir=tmp_path / "cache")

    assert SECRET not in mapped.tags
    assert SECRET_DEFINITION not in render_map(mapped, 1024, TOKENS).text


def test_ignored_binary_huge_secret_and_linked_files_are_left_out(tmp_path: Path) -> None:
    root = write_project(tmp_path / "project").resolve()
    (root / ".gitignore").write_text("build/\n")
    (root / "build").mkdir()
    (root / "build/generated.py").write_text("def generated_code():\n    pass\n")
    (root / "blob.py").write_bytes(b"def x():\0\n")
    (root / "huge.py").write_text("def huge():\n    pass\n" + "#" * 600_000)
    (root / "secrets").mkdir()
    (root / "secrets/token.py").write_text("def token_value():\n    pass\n")
    outside = tmp_path / "outside.py"
    outside.write_text("def outside_definition():\n    pass\n")
    (root / "linked.py").symlink_to(outside)

    mapped = map_files(root, everything, cache_dir=tmp_path / "cache")

    assert set(mapped.tags) == set(FILES)
    assert mapped.skipped == 2  # the binary and the huge file were listed, then left out


def test_more_files_than_the_limit_are_cut_and_said(tmp_path: Path) -> None:
    root = write_project(tmp_path).resolve()
    mapped = map_files(root, everything, cache_dir=tmp_path / "cache", max_files=3)

    assert len(mapped.tags) == 3 and mapped.limited
