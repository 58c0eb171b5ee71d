"""What checkpoints cost a shell command: the snapshot before it and the scan after it, on this repository.

The first snapshot reads and keeps every file under ``max_file_bytes`` (each content once); a new
session's first snapshot reads every file again but writes nothing already kept; later ones read only
files whose stat changed, so they cost one ``lstat`` per entry. Printed: those three, the last as the
median of repeated snapshot + scan pairs, and the entries scanned.
"""

from __future__ import annotations

import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from engine.checkpoints.store import CheckpointStore
from engine.checkpoints.tree import TreeIndex

REPEATS = 20
PROJECT = str(Path(__file__).resolve().parent.parent)


def main() -> None:
    with tempfile.TemporaryDirectory() as folder:
        index = TreeIndex(CheckpointStore(Path(folder)), 10_000_000)
        started = time.perf_counter()
        first = index.snapshot([PROJECT])
        first_s = time.perf_counter() - started
        started = time.perf_counter()
        TreeIndex(index.store, 10_000_000).snapshot([PROJECT])
        fresh_s = time.perf_counter() - started
        pairs = []
        for _ in range(REPEATS):
            started = time.perf_counter()
            index.snapshot([PROJECT])
            index.scan([PROJECT])
            pairs.append(time.perf_counter() - started)
    print(f"checkpoints: {len(first.keys)} entries under {PROJECT}")
    print(f"  first snapshot (reads and keeps every file): {first_s * 1000:.1f} ms")
    print(f"  first snapshot of a new session, contents already kept: {fresh_s * 1000:.1f} ms")
    print(f"  later snapshot + scan per command, median of {REPEATS}: {statistics.median(pairs) * 1000:.1f} ms")


if __name__ == "__main__":
    main()
