"""`hive research --provider docs` keeps its index: the next run reads only what changed, and finds it."""

from __future__ import annotations

import os
import shutil
import stat
import time
from pathlib import Path

from tests.support.cli import run_hive
from tests.support.llm_server import LLMServer
from tests.support.research_model import FIXTURE_DOCS, ResearchScript, research_args

QUESTION = "How fast is the Tessel Glacier retreating, and why?"
SUFFICIENT = '{"score": 0.9, "gaps": [], "next_queries": []}'
AN_HOUR_AGO = time.time() - 3600


def aged_copy(folder: Path) -> Path:
    """The fixture documents in ``folder``, dated an hour back (written earlier, as a documents folder is)."""
    shutil.copytree(FIXTURE_DOCS, folder)
    for path in folder.rglob("*.*"):
        os.utime(path, (AN_HOUR_AGO, AN_HOUR_AGO))
    return folder


def research(server: LLMServer, workdir: Path, docs: Path) -> tuple[list[str], set[str]]:
    """A run's ``research: indexed`` lines, and the titles of the documents it read."""
    done = run_hive("research", QUESTION, *research_args(server, workdir, docs), "--min-sources", "1")
    assert done.returncode == 0, done.stderr
    lines = done.stderr.splitlines()
    indexed = [line for line in lines if line.startswith("research: indexed")]
    return indexed, {line.split("] ", 1)[1] for line in lines if line.startswith("research: read [")}


def test_the_second_run_reads_only_new_and_changed_documents_and_finds_them(
    llm_server: LLMServer, tmp_path: Path, isolated_hive: Path
) -> None:
    docs = aged_copy(tmp_path / "docs").resolve()
    workdir = tmp_path / "work"
    workdir.mkdir()

    plans = ['["Tessel Glacier retreat"]', '["zorblat front", "quillon stakes", "snowfall upper basin"]']
    ResearchScript(plans=plans, judges=[SUFFICIENT]).install(llm_server)
    first, _ = research(llm_server, workdir, docs)
    (docs / "glacier_retreat.md").write_text("# Tessel Glacier retreat\n\nThe zorblat front moved back.\n")
    (docs / "snowfall.txt").unlink()
    (docs / "notes" / "quillon.md").write_text("# Quillon survey\n\nThe quillon stakes were read in May.\n")
    second, read = research(llm_server, workdir, docs)

    assert first == [f"research: indexed 9 document(s) in {docs}: 9 read, 0 kept from an earlier run"]
    assert second == [f"research: indexed 9 document(s) in {docs}: 2 read, 7 kept from an earlier run, 1 gone"]
    assert {"Tessel Glacier retreat", "Quillon survey"} <= read and "snowfall" not in read
    kept = list((isolated_hive / "cache" / "research").iterdir())
    assert len(kept) == 1 and stat.S_IMODE(kept[0].stat().st_mode) == 0o600


def test_a_damaged_kept_index_is_said_and_rebuilt(llm_server: LLMServer, tmp_path: Path, isolated_hive: Path) -> None:
    docs = aged_copy(tmp_path / "docs").resolve()
    workdir = tmp_path / "work"
    workdir.mkdir()
    ResearchScript(judges=[SUFFICIENT]).install(llm_server)
    research(llm_server, workdir, docs)
    (kept,) = (isolated_hive / "cache" / "research").iterdir()
    kept.write_bytes(kept.read_bytes()[:100])

    indexed, read = research(llm_server, workdir, docs)
    after, _ = research(llm_server, workdir, docs)

    assert indexed == [
        f"research: indexed 9 document(s) in {docs}: 9 read, 0 kept from an earlier run; "
        "the kept index is damaged: indexed afresh"
    ]
    assert "Tessel Glacier retreat" in read
    assert after == [f"research: indexed 9 document(s) in {docs}: 0 read, 9 kept from an earlier run"]
