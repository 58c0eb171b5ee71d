"""``--verify``: does each cited sentence's source say it? A lexical support score, no model involved.

A sentence's support by a source is the share of its content words found in the source's best
passage (overlapping windows of ``WINDOW_WORDS`` words). Below ``WEAK_SUPPORT`` the citation is weak:
it is marked in the text and listed in a ``## Citation check`` section.
"""

from __future__ import annotations

import re

from engine.research.citations import CITATION
from engine.research.result import CitedSource, WeakCitation

WINDOW_WORDS = 80
WEAK_SUPPORT = 0.5
WEAK_MARK = " (⚠ weak support)"
_WORD = re.compile(r"[a-z0-9]+(?:[-'][a-z0-9]+)*")
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+|\n+")
_STOPWORDS = frozenset(
    "the and for are was were with that this from into than then they them their there these those has have had "
    "its not but can may also more most such which who whom what when where while been being over under about "
    "after before between during each other some any all our out one two per via".split()
)


def content_words(text: str) -> list[str]:
    """The words that carry meaning: lower-cased, three letters or more, common words left out."""
    return [w for w in _WORD.findall(text.lower()) if len(w) >= 3 and w not in _STOPWORDS]


def support(sentence: str, source_text: str) -> float:
    """Share of ``sentence``'s content words found in the best window of ``source_text`` (1.0 when it has none)."""
    wanted = set(content_words(CITATION.sub(" ", sentence)))
    if not wanted:
        return 1.0
    words = content_words(source_text)
    step = WINDOW_WORDS // 2
    best = 0
    for start in range(0, max(1, len(words) - step), step):
        best = max(best, len(wanted & set(words[start : start + WINDOW_WORDS])))
    return best / len(wanted)


def check_citations(body: str, cited: tuple[CitedSource, ...]) -> tuple[str, tuple[WeakCitation, ...]]:
    """``body`` with weak citations marked, and the weak ones found."""
    texts = {c.number: c.source.text for c in cited}
    weak: list[WeakCitation] = []
    marked = body
    for sentence in cited_sentences(body):
        for number in (int(n) for n in CITATION.findall(sentence)):
            score = support(sentence, texts.get(number, ""))
            if score < WEAK_SUPPORT:
                weak.append(WeakCitation(sentence=sentence, number=number, support=score))
                marked = marked.replace(sentence, sentence.replace(f"[{number}]", f"[{number}]{WEAK_MARK}", 1), 1)
    return marked, tuple(weak)


def cited_sentences(body: str) -> list[str]:
    """The sentences of ``body`` that carry a citation (headings left out)."""
    pieces = (p.strip() for p in _SENTENCE_END.split(body))
    return [p for p in pieces if p and not p.startswith("#") and CITATION.search(p)]


def check_section(weak: tuple[WeakCitation, ...]) -> str:
    """The ``## Citation check`` section for the report."""
    if not weak:
        return "## Citation check\n\nEvery cited sentence is supported by the words of its source."
    lines = [f"- [{w.number}] support {w.support:.2f}: {w.sentence}" for w in weak]
    header = (
        f"## Citation check\n\n{len(weak)} citation(s) have weak support (below {WEAK_SUPPORT:.2f}) in their source:"
    )
    return header + "\n\n" + "\n".join(lines)
