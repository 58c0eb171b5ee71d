"""Context management: token-counting speed and what observation masking saves.

1. Counting the prompt tokens of a 200k-token history (cold: a fresh counter; cached: after one new
   message, the rest remembered). Goal: cached at most 5 ms.
2. A 60-round task reading a different 4 KB file each round, run through the real loop, with
   observation masking (the default policy, 10 protected rounds) and with the full history: bytes
   and tokens sent over all requests, the ratio, and the largest request against a 16k-token
   window. Goal: ratio at most 0.45.
"""

from __future__ import annotations

import asyncio
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")

from benchmarks.support.context_task import MODEL, LedgerModel, reading_history, run_reading_task, write_files
from engine.context.compaction import Compactor
from engine.context.management import default_context_policy
from engine.context.masking import ObservationMasking
from engine.context.options import ContextOptions
from engine.context.policy import PassThrough
from engine.context.tokens import TokenCounter
from engine.context.window import Windows
from engine.conversation import Conversation
from engine.model import litellm_import

HISTORY_TOKENS = 200_000
REPEATS = 7
ROUNDS = 60
WINDOW = 16_000


def counting() -> None:
    history = reading_history(HISTORY_TOKENS)
    colds, cached = [], []
    for repeat in range(REPEATS):
        counter = TokenCounter(MODEL)
        started = time.perf_counter()
        total = counter.request(history)
        colds.append(time.perf_counter() - started)
        grown = [*history, {"role": "user", "content": f"and now step {repeat}?"}]
        started = time.perf_counter()
        counter.request(grown)
        cached.append(time.perf_counter() - started)
    print(f"token counting, {len(history)} messages, {total:,} tokens ({MODEL}'s tokenizer, offline):")
    print(f"  cold (fresh counter):           median {1000 * statistics.median(colds):8.1f} ms")
    print(f"  after one new message (cached): median {1000 * statistics.median(cached):8.2f} ms  (goal <= 5 ms)")


def masking() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        workdir = Path(tmp)
        write_files(workdir, ROUNDS)
        masked = asyncio.run(run_reading_task(workdir, ROUNDS, ObservationMasking(protected_rounds=10)))
        conversation = Conversation()
        policy = default_context_policy(
            ContextOptions(context_window=WINDOW), lambda: MODEL, conversation, Compactor(LedgerModel), Windows(WINDOW)
        )
        default = asyncio.run(run_reading_task(workdir, ROUNDS, policy, conversation))
        full = asyncio.run(run_reading_task(workdir, ROUNDS, PassThrough()))
    print(f"{ROUNDS}-round task reading 4 KB files ({masked.requests} requests):")
    rows = (("masking (10 rounds)", masked), (f"hive's default, {WINDOW // 1000}k", default), ("full history", full))
    for name, sent in rows:
        fits = "fits" if sent.largest_tokens <= WINDOW else "does not fit"
        print(
            f"  {name:20} {sent.total_bytes / 1e6:7.2f} MB, {sent.total_tokens:>10,} tokens sent; "
            f"largest request {sent.largest_tokens:,} tokens ({fits} a {WINDOW // 1000}k window)"
        )
    print(
        f"  ratio masked/full: bytes {masked.total_bytes / full.total_bytes:.3f}, "
        f"tokens {masked.total_tokens / full.total_tokens:.3f}  (goal <= 0.45)"
    )
    print(
        f"  ratio hive's default/full (masking, compaction at 92%, goal reminders): "
        f"tokens {default.total_tokens / full.total_tokens:.3f}  (goal <= 0.45, every request fitting)"
    )


def main() -> None:
    litellm_import.load()
    counting()
    masking()


if __name__ == "__main__":
    main()
