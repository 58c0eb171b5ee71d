"""The two pattern languages of permission rules: path globs and command word patterns.

Path globs (``read``, ``edit``, ``external_directory``) and name globs (``tools``, ``mcp_tools``,
``read_only_tools``) are hive's one glob language, :mod:`engine.globs`: ``*`` and ``?`` stay within one
path segment, ``**`` spans segments (``src/**`` is ``src`` and everything below it), and a pattern
without ``/`` matches the file name at any depth, so ``.env*`` covers ``config/.env.local``.

Command patterns (``bash``): shell words. A word that is exactly ``*`` matches any number of words
(none included), a ``*`` at the very end of a pattern also matches any words after it, other ``*``
and ``?`` match within one word (a name glob over the word, whose backslashes are plain: the shell has
already read them), ``-rf`` matches a short-option cluster with the same letters in any
order (``-fr``), and ``|`` matches a pipe between two commands of a pipeline.
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Sequence
from functools import cache, lru_cache

from msgspec import Struct

from engine.globs import GlobError, name_glob, path_glob

PIPE = "\x00|"
"""The word standing for a pipe between two commands (no shell word can contain a NUL)."""
ANY_WORDS = "\x00*"
"""A pattern word matching any number of command words."""

CommandWord = str | None


class PatternError(ValueError):
    """A pattern that cannot be understood; the message says why."""


# --- path and name globs ----------------------------------------------------------------


def path_regex(pattern: str, ignore_case: bool = False) -> re.Pattern[str]:
    """The compiled form of a path glob (see :mod:`engine.globs`); raises ``PatternError`` when it has none."""
    try:
        return path_glob(pattern, ignore_case=ignore_case)
    except GlobError as exc:
        raise PatternError(str(exc)) from None


def name_regex(pattern: str, ignore_case: bool = False) -> re.Pattern[str]:
    """The compiled form of a name glob: ``*`` matches any characters."""
    if not pattern.strip():
        raise PatternError("empty pattern")
    try:
        return name_glob(pattern.strip(), ignore_case=ignore_case)
    except GlobError as exc:
        raise PatternError(str(exc)) from None


def path_matches(pattern: str, path: str, ignore_case: bool = False) -> bool:
    """Whether ``path`` (relative to the working directory, or absolute) matches the glob."""
    return path_regex(pattern, ignore_case).fullmatch(path) is not None


def name_matches(pattern: str, name: str, ignore_case: bool = False) -> bool:
    """Whether a tool name matches the glob."""
    return name_regex(pattern, ignore_case).fullmatch(name) is not None


# --- command patterns -------------------------------------------------------------------


class CommandPattern(Struct, frozen=True):
    """A parsed ``bash`` pattern: one matcher per word."""

    text: str
    words: tuple[str, ...]

    def matches(self, words: Sequence[CommandWord]) -> bool:
        """Whether the command (or pipeline) ``words`` match this pattern."""
        return _match_words(self.words, tuple(words))


@lru_cache(maxsize=4096)
def command_pattern(text: str) -> CommandPattern:
    """Parse a ``bash`` pattern into words; raises ``PatternError`` when it is not one command or pipeline."""
    lexer = shlex.shlex(text, posix=True, punctuation_chars="|&;<>()")
    lexer.whitespace_split = True
    try:
        tokens = list(lexer)
    except ValueError as exc:
        raise PatternError(f"cannot split into words: {exc}") from None
    if not tokens:
        raise PatternError("empty pattern")
    words: list[str] = []
    for token in tokens:
        if token == "|":
            words.append(PIPE)
        elif token and set(token) <= set("|&;<>()"):
            raise PatternError(
                f"{token!r} is not allowed in a pattern: write one rule per command (compound commands are "
                "judged part by part)"
            )
        elif token == "*":
            words.append(ANY_WORDS)
        else:
            words.append(_checked_word(token))
    if words[0] in (PIPE, ANY_WORDS) and len(words) == 1:
        return CommandPattern(text, (ANY_WORDS,))
    if words[-1] not in (ANY_WORDS, PIPE) and words[-1].endswith("*"):
        words.append(ANY_WORDS)
    return CommandPattern(text, tuple(words))


def _checked_word(word: str) -> str:
    try:
        _word_regex(word)
    except GlobError as exc:
        raise PatternError(str(exc)) from None
    return word


def _match_words(pattern: tuple[str, ...], words: tuple[CommandWord, ...]) -> bool:
    @cache
    def match(p: int, w: int) -> bool:
        if p == len(pattern):
            return w == len(words)
        if pattern[p] == ANY_WORDS:
            return any(match(p + 1, k) for k in range(w, len(words) + 1))
        return w < len(words) and _word_matches(pattern[p], words[w]) and match(p + 1, w + 1)

    return match(0, 0)


def _word_matches(pattern: str, word: CommandWord) -> bool:
    if word is None:
        return False
    if pattern == PIPE or word == PIPE:
        return pattern == word
    if _is_short_options(pattern) and _is_short_options(word):
        return sorted(pattern[1:]) == sorted(word[1:])
    return _word_regex(pattern).fullmatch(word) is not None


def _is_short_options(word: str) -> bool:
    return len(word) > 2 and word[0] == "-" and word[1:].isalpha()


def _word_regex(pattern: str) -> re.Pattern[str]:
    # The shell has already taken its quotes and backslashes off the pattern's words: what is left is plain.
    return name_glob(pattern.replace("\\", "\\\\"))


def exact_matches(category: str, pattern: str, value: str | tuple[CommandWord, ...]) -> bool:
    """Whether an exact rule's ``pattern`` is ``value`` itself: the same path or name, or the same command words.

    A command is compared word by word with the pattern split as a shell would split it (``|`` is a
    pipe); a command with a word only known when it runs never matches.
    """
    if isinstance(value, str):
        return category != "bash" and pattern == value
    return category == "bash" and None not in value and _exact_words(pattern) == value


@lru_cache(maxsize=1024)
def _exact_words(text: str) -> tuple[str, ...] | None:
    lexer = shlex.shlex(text, posix=True, punctuation_chars="|")
    lexer.whitespace_split = True
    try:
        return tuple(PIPE if token == "|" else token for token in lexer)
    except ValueError:
        return None


def render_words(words: Sequence[CommandWord]) -> str:
    """Command words as a readable command line (expansions shown as ``$…``)."""
    shown = []
    for word in words:
        if word is None:
            shown.append("$…")
        elif word == PIPE:
            shown.append("|")
        else:
            shown.append(shlex.quote(word) if word else "''")
    return " ".join(shown)
