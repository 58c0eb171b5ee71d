"""What redacting secrets in tool output costs: detect-secrets' plugins plus hive's rules, per MB and per 30 KB result.

Corpus: text files of this checkout's virtualenv (site-packages), which hold no real secrets, cut into
fragments as tool results would be: the redactions made there are false positives. Recall: the fake
credentials of tests/support/fake_credentials.py, each planted alone. Also shown: the first result's
cost (importing detect-secrets, compiling the rules and RE2's literal prefilter) and a result with
none of the rules' literals (the prefilter's cost).

Usage: python benchmarks/redaction.py [MAX_MB]
"""

from __future__ import annotations

import collections
import statistics
import sys
import sysconfig
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from engine.redaction.regex import re2_module
from engine.redaction.scan import Redactor, ValueMatcher, default_rules
from tests.support.fake_credentials import FAKE_CREDENTIALS, MORE_CREDENTIALS, FakeCredential

TEXT_SUFFIXES = {
    ".py",
    ".pyi",
    ".txt",
    ".md",
    ".rst",
    ".json",
    ".toml",
    ".cfg",
    ".ini",
    ".yaml",
    ".yml",
    ".js",
    ".html",
}
TYPICAL = 30 * 1024
FRAGMENT = 64 * 1024


def corpus(root: Path, max_bytes: int, size: int) -> list[str]:
    """Text files under ``root`` (in a stable order) cut into ``size``-character pieces, up to ``max_bytes``."""
    pieces: list[str] = []
    total = 0
    for path in sorted(root.rglob("*")):
        if path.suffix not in TEXT_SUFFIXES or not path.is_file():
            continue
        try:
            text = path.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError):
            continue
        pieces += [text[i : i + size] for i in range(0, len(text), size)]
        total += len(text.encode())
        if total >= max_bytes:
            break
    return pieces


def timed(redactor: Redactor, pieces: list[str]) -> tuple[list[float], collections.Counter[str], list[str]]:
    seconds, kinds, samples = [], collections.Counter[str](), []
    for piece in pieces:
        started = time.perf_counter()
        findings = redactor.findings(piece)
        seconds.append(time.perf_counter() - started)
        raw = piece.encode()
        for finding in findings:
            kinds[finding.kind] += 1
            if len(samples) < 5:
                shown = raw[max(0, finding.start - 40) : finding.end + 10].decode(errors="replace")
                samples.append(f"{finding.kind}: {shown!r}"[:150])
    return seconds, kinds, samples


def main() -> None:
    max_mb = float(sys.argv[1]) if len(sys.argv) > 1 else 8.0
    root = Path(sysconfig.get_paths()["purelib"])
    started = time.perf_counter()
    import detect_secrets.core.plugins.util  # noqa: F401  (what the first result imports, timed apart)

    imported = time.perf_counter()
    redactor = Redactor(default_rules(), ValueMatcher(()))
    first = redactor.findings("export SERVICE_TOKEN=" + "x" * 20 + " # api key, password, secret")
    done = time.perf_counter()
    print(
        f"engine: {'google-re2' if re2_module() is not None else 'Python re (google-re2 not installed)'}, "
        f"{len(redactor.rules.rules)} rules; first result {(done - started) * 1000:.0f} ms: importing "
        f"detect-secrets {(imported - started) * 1000:.0f} ms, the rest {(done - imported) * 1000:.0f} ms "
        f"({len(first)} findings)"
    )
    python_rules = collections.Counter(redactor.rules.python_rules())
    print(
        "confirmed by Python's re on RE2's candidate lines: " + ", ".join(f"{k} {n}" for k, n in python_rules.items())
    )

    pieces = corpus(root, int(max_mb * 1e6), FRAGMENT)
    size_mb = sum(len(p.encode()) for p in pieces) / 1e6
    seconds, kinds, samples = timed(redactor, pieces)
    total = sum(seconds)
    print(f"\ncorpus: {size_mb:.1f} MB of text from {root}, {len(pieces)} fragments of <= 64 KiB")
    print(
        f"  cost per MB          {total / size_mb * 1000:7.0f} ms   ({total / size_mb:.2f} ms per KB, {size_mb / total:.1f} MB/s)"
    )
    print(
        f"  false positives      {sum(kinds.values()):7d}      ({sum(kinds.values()) / size_mb:.1f} per MB): "
        + ", ".join(f"{k} {n}" for k, n in kinds.most_common(6))
    )
    for sample in samples:
        print(f"    e.g. {sample}")

    typical = [p for p in corpus(root, int(max_mb * 1e6), TYPICAL) if len(p) == TYPICAL]
    typical_seconds, _, _ = timed(redactor, typical)
    print(
        f"  a 30 KB result       {statistics.median(typical_seconds) * 1000:7.1f} ms   median of {len(typical)} "
        f"(p90 {statistics.quantiles(typical_seconds, n=10)[-1] * 1000:.1f} ms)"
    )
    plain = ("The quick brown fox jumps over the lazy dog near the river bank.\n" * 480)[:TYPICAL]
    plain_seconds, _, _ = timed(redactor, [plain] * 50)
    print(
        f"  30 KB of plain prose {statistics.median(plain_seconds) * 1000:7.2f} ms   (none of the rules' literals: the prefilter, and the few rules with none)"
    )

    python_pieces = pieces[: max(1, len(pieces) // 4)]
    python_mb = sum(len(p.encode()) for p in python_pieces) / 1e6
    python_seconds, _, _ = timed(Redactor(default_rules(python_only=True), ValueMatcher(())), python_pieces)
    print(
        f"  without google-re2   {sum(python_seconds) / python_mb * 1000:7.0f} ms   per MB (Python re, {python_mb:.1f} MB)"
    )

    print()
    recall("planted credentials (the tests' list)", redactor, FAKE_CREDENTIALS)
    recall("further shapes", redactor, MORE_CREDENTIALS)


def recall(title: str, redactor: Redactor, credentials: tuple[FakeCredential, ...]) -> None:
    missed = [c.name for c in credentials if c.secret in redactor.redact(c.text)]
    caught = len(credentials) - len(missed)
    print(f"{title}: {caught}/{len(credentials)} redacted; missed: {', '.join(missed) or 'none'}")


if __name__ == "__main__":
    main()
