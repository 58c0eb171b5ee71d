"""BM25 over numbered passages, held as numpy arrays of term counts that can be kept and merged.

The index stores counts only (each term's passages and how often it occurs in each, and each passage's
length); scores are computed when a query comes (Lucene's BM25, k1 1.5, b 0.75). So an index read
back from disk is ready as it is, and a few changed files are merged in without touching the rest.
Words are runs of two or more word characters, lower-cased, without the common English stop words.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

import numpy as np
from numpy.typing import NDArray

K1 = 1.5
B = 0.75
_WORD = re.compile(r"\b\w\w+\b")
STOPWORDS = frozenset(
    "a an and are as at be but by for if in into is it no not of on or such "
    "that the their then there these they this to was will with".split()
)

Numbers = NDArray[np.int32]


def words(text: str) -> list[str]:
    """The indexed words of ``text``, in order (repeats kept)."""
    return [word for word in _WORD.findall(text.lower()) if word not in STOPWORDS]


class PassageIndex:
    """Term counts of passages numbered ``0 .. size - 1``, grouped by term.

    ``starts[t] : starts[t + 1]`` is where term ``vocab[t]`` lies in ``passages`` (its passages, ascending)
    and ``counts`` (how often it occurs in each); ``lengths[p]`` is passage ``p``'s number of words.
    """

    def __init__(
        self, vocab: list[str], starts: NDArray[np.int64], passages: Numbers, counts: Numbers, lengths: Numbers
    ) -> None:
        self.vocab = vocab
        self.starts = starts
        self.passages = passages
        self.counts = counts
        self.lengths = lengths
        self._terms: dict[str, int] | None = None
        self._norms: NDArray[np.float64] | None = None

    @classmethod
    def empty(cls) -> PassageIndex:
        """An index of no passages."""
        none = np.zeros(0, dtype=np.int32)
        return cls([], np.zeros(1, dtype=np.int64), none, none, none)

    @property
    def size(self) -> int:
        """The number of passages."""
        return len(self.lengths)

    def ranked(self, query: str, count: int) -> tuple[Numbers, bool]:
        """The ``count`` best passages for ``query`` (more when several tie for the last place), best first
        (equal scores: lower number first), only those scoring above zero; and whether that is all of those.
        """
        scores = self.scores(query)
        matched = np.flatnonzero(scores > 0).astype(np.int32)
        everything = len(matched) <= count
        if not everything:
            cut = len(matched) - count
            lowest = np.partition(scores[matched], cut)[cut]
            matched = matched[scores[matched] >= lowest]
        return matched[np.lexsort((matched, -scores[matched]))], everything

    def scores(self, query: str) -> NDArray[np.float64]:
        """Each passage's BM25 score for ``query``."""
        scores = np.zeros(self.size, dtype=np.float64)
        terms = self._term_numbers()
        for word in words(query):
            term = terms.get(word)
            if term is not None:
                self._add_term(scores, term)
        return scores

    def _add_term(self, scores: NDArray[np.float64], term: int) -> None:
        begin, end = int(self.starts[term]), int(self.starts[term + 1])
        where = self.passages[begin:end]
        counts = self.counts[begin:end].astype(np.float64)
        found = end - begin
        weight = np.log(1 + (self.size - found + 0.5) / (found + 0.5))
        scores[where] += weight * counts / (counts + self._length_norms()[where])

    def _term_numbers(self) -> dict[str, int]:
        if self._terms is None:
            self._terms = {word: number for number, word in enumerate(self.vocab)}
        return self._terms

    def _length_norms(self) -> NDArray[np.float64]:
        if self._norms is None:
            average = float(self.lengths.mean()) if self.size else 1.0
            relative = self.lengths.astype(np.float64) / (average or 1.0)
            self._norms = K1 * (1 - B + B * relative)
        return self._norms


def merged(old: PassageIndex, moved: Numbers, fresh: Sequence[tuple[int, list[str]]], size: int) -> PassageIndex:
    """An index of ``size`` passages: ``old``'s passage ``p`` becomes ``moved[p]`` (dropped where -1),
    and each ``(number, words)`` of ``fresh`` is added as passage ``number``.

    Terms no passage holds any more are left out, so the vocabulary does not grow with deleted files.
    """
    vocab_numbers = {word: number for number, word in enumerate(old.vocab)}
    new_terms, new_passages, new_counts = _counted(fresh, vocab_numbers)
    old_terms = np.repeat(np.arange(len(old.vocab), dtype=np.int32), np.diff(old.starts))
    old_passages = moved[old.passages]
    alive = old_passages >= 0
    terms = np.concatenate([old_terms[alive], new_terms])
    passages = np.concatenate([old_passages[alive], new_passages])
    counts = np.concatenate([old.counts[alive], new_counts])
    order = np.lexsort((passages, terms))
    per_term = np.bincount(terms, minlength=len(vocab_numbers))
    used = per_term > 0
    starts = np.zeros(int(used.sum()) + 1, dtype=np.int64)
    np.cumsum(per_term[used], out=starts[1:])
    vocab = [word for word, keep in zip(vocab_numbers, used.tolist(), strict=True) if keep]
    lengths = np.zeros(size, dtype=np.int32)
    lengths[moved[moved >= 0]] = old.lengths[moved >= 0]
    for number, passage_words in fresh:
        lengths[number] = len(passage_words)
    return PassageIndex(vocab, starts, passages[order].astype(np.int32), counts[order].astype(np.int32), lengths)


def _counted(fresh: Sequence[tuple[int, list[str]]], vocab: dict[str, int]) -> tuple[Numbers, Numbers, Numbers]:
    """The (term, passage, count) triples of ``fresh``, sorted by passage; new words are added to ``vocab``."""
    term_ids: list[int] = []
    for _, passage_words in fresh:
        term_ids.extend([vocab.setdefault(word, len(vocab)) for word in passage_words])
    if not term_ids:
        none = np.zeros(0, dtype=np.int32)
        return none, none, none
    numbers = np.array([number for number, _ in fresh], dtype=np.int64)
    owners = np.repeat(numbers, [len(passage_words) for _, passage_words in fresh])
    width = len(vocab)
    pairs, counts = np.unique(owners * width + np.array(term_ids, dtype=np.int64), return_counts=True)
    return (pairs % width).astype(np.int32), (pairs // width).astype(np.int32), counts.astype(np.int32)
