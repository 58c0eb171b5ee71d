"""The docs index kept between runs: reused for unchanged files, updated for changed, new and deleted ones,
rebuilt when damaged, private, safe with two runs at once, and always equal to an index built afresh."""

from __future__ import annotations

import asyncio
import os
import stat
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import msgspec
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine.research.docs_index import LocalDocs
from engine.research.docs_refresh import IndexReport
from engine.research.kept_index import kept_path, load

AN_HOUR_AGO = time.time() - 3600
WORDS = ("ptarmigan", "firn", "moraine", "nunatak", "serac", "cirque", "esker", "drumlin")


def write(folder: Path, name: str, text: str, *, aged: bool = True) -> Path:
    """``text`` in ``folder/name``; ``aged``: dated an hour back (not just modified, so its stamp alone is trusted)."""
    path = folder / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    if aged:
        os.utime(path, (AN_HOUR_AGO, AN_HOUR_AGO))
    return path


def build(folder: Path, cache: Path) -> tuple[LocalDocs, IndexReport]:
    docs = LocalDocs(folder, cache=cache)
    return docs, docs.build()


def found(docs: LocalDocs, query: str, limit: int = 10) -> list[tuple[str, str, str]]:
    return [(Path(hit.url).name, hit.title, hit.snippet) for hit in asyncio.run(docs.search(query, limit))]


def names(docs: LocalDocs, query: str) -> list[str]:
    return [name for name, _, _ in found(docs, query)]


def counts(report: IndexReport) -> tuple[int, int, int, int]:
    return report.files, report.read, report.kept, report.gone


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    docs = tmp_path / "docs"
    write(docs, "a.md", "# Alpha\n\nThe ptarmigan nests above the moraine.\n")
    write(docs, "b.txt", "Firn turns to ice under the weight of snow.\n")
    write(docs, "notes/c.html", "<title>Cirque</title><p>A cirque holds the moraine and an esker.</p>")
    return docs


def test_a_second_run_reads_no_document_and_answers_as_the_first(folder: Path, tmp_path: Path) -> None:
    first, first_report = build(folder, tmp_path / "cache")
    second, second_report = build(folder, tmp_path / "cache")

    assert counts(first_report) == (3, 3, 0, 0)
    assert counts(second_report) == (3, 0, 3, 0) and not second_report.changed
    for query in ("moraine", "firn ice", "cirque esker", "ptarmigan"):
        assert found(second, query) == found(first, query)


def test_only_new_and_changed_documents_are_read_and_deleted_ones_are_gone(folder: Path, tmp_path: Path) -> None:
    build(folder, tmp_path / "cache")
    write(folder, "a.md", "# Alpha\n\nA nunatak rises through the ice sheet.\n")
    (folder / "b.txt").unlink()
    write(folder, "notes/d.md", "# Delta\n\nThe serac fell.\n")

    docs, report = build(folder, tmp_path / "cache")

    assert counts(report) == (3, 2, 1, 1)
    assert names(docs, "nunatak") == ["a.md"] and names(docs, "ptarmigan") == []
    assert names(docs, "firn") == []
    assert names(docs, "serac") == ["d.md"]
    assert names(docs, "esker") == ["c.html"]
    assert counts(build(folder, tmp_path / "cache")[1]) == (3, 0, 3, 0)


def test_a_document_modified_just_before_it_was_read_is_checked_by_its_bytes(tmp_path: Path) -> None:
    folder = tmp_path / "docs"
    write(folder, "fresh.md", "# Fresh\n\nA drumlin in the field.\n", aged=False)
    build(folder, tmp_path / "cache")
    where = kept_path(folder.resolve(), tmp_path / "cache")

    _, unchanged = build(folder, tmp_path / "cache")  # the digest matches: kept, not read
    record = msgspec.msgpack.decode(where.read_bytes())
    record["files"][0][3] = b"\0" * 16  # a digest the bytes no longer have, as after a same-size change
    where.write_bytes(msgspec.msgpack.encode(record))
    _, mismatched = build(folder, tmp_path / "cache")

    assert counts(unchanged) == (1, 0, 1, 0)
    assert counts(mismatched) == (1, 1, 0, 0)


def damaged(where: Path) -> dict[str, bytes]:
    """Ways the kept file can be wrong: not msgpack, cut short, empty, another format or folder, arrays that disagree."""
    data = where.read_bytes()
    record = msgspec.msgpack.decode(data)

    def changed(**fields: object) -> bytes:
        return msgspec.msgpack.encode({**record, **fields})

    return {
        "garbage": b"\x93not an index at all",
        "cut short": data[: len(data) // 2],
        "empty": b"",
        "another format": changed(format=record["format"] + 1),
        "another folder": changed(folder="/somewhere/else"),
        "a passage out of range": changed(passages=(10**6).to_bytes(4, "little") * (len(record["passages"]) // 4)),
        "a ragged array": changed(lengths=record["lengths"] + b"\1"),
    }


@pytest.mark.parametrize(
    "kind",
    [
        "garbage",
        "cut short",
        "empty",
        "another format",
        "another folder",
        "a passage out of range",
        "a ragged array",
    ],
)
def test_a_kept_index_that_cannot_be_used_is_rebuilt_without_error(folder: Path, tmp_path: Path, kind: str) -> None:
    fresh, _ = build(folder, tmp_path / "fresh")
    build(folder, tmp_path / "cache")
    where = kept_path(folder.resolve(), tmp_path / "cache")
    where.write_bytes(damaged(where)[kind])

    docs, report = build(folder, tmp_path / "cache")

    assert counts(report) == (3, 3, 0, 0) and "indexed afresh" in report.note
    assert found(docs, "moraine") == found(fresh, "moraine") != []
    assert counts(build(folder, tmp_path / "cache")[1]) == (3, 0, 3, 0)  # written again, whole


def test_the_kept_index_is_private_and_leaves_no_partial_file(folder: Path, tmp_path: Path) -> None:
    build(folder, tmp_path / "cache")
    where = kept_path(folder.resolve(), tmp_path / "cache")

    assert stat.S_IMODE(where.stat().st_mode) == 0o600
    assert stat.S_IMODE(where.parent.stat().st_mode) == 0o700
    assert [path.name for path in where.parent.iterdir()] == [where.name]
    assert load(where, folder.resolve()) is not None


def test_by_default_it_is_kept_in_hive_s_user_cache(folder: Path, isolated_hive: Path) -> None:
    LocalDocs(folder).build()

    assert [path.suffix for path in (isolated_hive / "cache" / "research").iterdir()] == [".msgpack"]


def test_a_file_name_that_is_not_utf8_is_searched_and_the_index_not_kept(folder: Path, tmp_path: Path) -> None:
    (Path(os.fsdecode(os.fsencode(folder) + b"/odd\xff.md"))).write_text("# Odd\n\nA drumlin.\n")

    docs, report = build(folder, tmp_path / "cache")

    assert counts(report) == (4, 4, 0, 0) and "not valid UTF-8" in report.note
    assert names(docs, "drumlin") == [os.fsdecode(b"odd\xff.md")]
    assert counts(build(folder, tmp_path / "cache")[1]) == (4, 4, 0, 0)


RUNNER = """
import sys
from pathlib import Path
from engine.research.docs_index import LocalDocs
folder, cache, mine = Path(sys.argv[1]), Path(sys.argv[2]), Path(sys.argv[3])
for round in range(15):
    mine.write_text(f"# Mine\\n\\nround {round} of the moraine\\n")
    report = LocalDocs(folder, cache=cache).build()
    print(report.files, report.note or "ok", flush=True)
"""


def test_two_runs_at_once_never_see_a_partial_kept_index(folder: Path, tmp_path: Path) -> None:
    runs = [
        subprocess.Popen(
            [sys.executable, "-c", RUNNER, str(folder), str(tmp_path / "cache"), str(folder / f"run{number}.md")],
            stdout=subprocess.PIPE,
            text=True,
        )
        for number in (1, 2)
    ]
    outputs = [run.communicate(timeout=120)[0].split("\n") for run in runs]

    assert [run.returncode for run in runs] == [0, 0]
    notes = {line.split(" ", 1)[1] for output in outputs for line in output if line}
    assert notes == {"ok"}
    docs, report = build(folder, tmp_path / "cache")
    assert counts(report)[0] == 5 and sorted(names(docs, "round")) == ["run1.md", "run2.md"]
    assert sorted(path.name for path in (tmp_path / "cache" / "research").iterdir()) == [
        kept_path(folder.resolve(), tmp_path / "cache").name
    ]


OPERATIONS = st.lists(
    st.tuples(
        st.sampled_from(["write", "delete"]),
        st.sampled_from(["a.md", "b.txt", "sub/c.md", "sub/d.html", "e.rst"]),
        st.lists(st.sampled_from(WORDS), min_size=0, max_size=700),
    ),
    min_size=1,
    max_size=6,
)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(OPERATIONS)
def test_an_updated_index_answers_as_one_built_afresh(operations: list[tuple[str, str, list[str]]]) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        folder, kept = Path(tmp) / "docs", Path(tmp) / "kept"
        folder.mkdir()
        for number, (action, name, words) in enumerate(operations):
            if action == "write":
                write(folder, name, " ".join(words), aged=False)
            else:
                (folder / name).unlink(missing_ok=True)
            updated, _ = build(folder, kept)
            fresh, _ = build(folder, Path(tmp) / f"fresh{number}")
            for query in (*WORDS, "ptarmigan firn", "moraine serac esker"):
                assert found(updated, query, 3) == found(fresh, query, 3)
