"""What a simple command really runs: wrappers looked through, deletions and risky variables recognised.

``timeout 5 env FOO=1 nice rm -rf /`` runs ``rm -rf /``; a rule about ``rm`` must see it. Wrapper
options are followed exactly; an option this module does not know stops the unwrapping, and the
wrapper is then judged as written (so it needs a rule of its own).
"""

from __future__ import annotations

from collections.abc import Sequence

from msgspec import Struct, field

from engine.policy.patterns import CommandWord
from engine.policy.risky_env import risky_variable

Words = tuple[CommandWord, ...]


class WrapperSpec(Struct, frozen=True):
    """How a wrapper command's own options look, so the wrapped command can be found."""

    flags: frozenset[str] = frozenset()
    """Options without a value."""
    takes_value: frozenset[str] = frozenset()
    """Options followed by a value (``-n 5``), also accepted as ``-n5`` and ``--name=5``."""
    positional: int = 0
    """Operands before the command (``timeout DURATION command``)."""
    assignments: bool = False
    """``NAME=value`` words may come before the command (``env``)."""
    numeric_flags: bool = False
    """Options like ``-5`` (``nice``)."""
    queries: frozenset[str] = frozenset()
    """Options that make the wrapper only look the command up, not run it (``command -v``)."""
    reads_arguments: bool = False
    """The command gets more arguments at run time (``xargs``)."""


def _options(text: str) -> frozenset[str]:
    return frozenset(text.split())


WRAPPERS: dict[str, WrapperSpec] = {
    "env": WrapperSpec(
        _options("-i --ignore-environment -0 --null -v --debug"), _options("-u --unset -C --chdir"), assignments=True
    ),
    "command": WrapperSpec(_options("-p"), queries=_options("-v -V")),
    "builtin": WrapperSpec(),
    "exec": WrapperSpec(_options("-c -l"), _options("-a")),
    "nohup": WrapperSpec(),
    "time": WrapperSpec(_options("-p")),
    "nice": WrapperSpec(takes_value=_options("-n --adjustment"), numeric_flags=True),
    "timeout": WrapperSpec(
        _options("--preserve-status --foreground -v --verbose"), _options("-s --signal -k --kill-after"), positional=1
    ),
    "stdbuf": WrapperSpec(takes_value=_options("-i -o -e --input --output --error")),
    "setsid": WrapperSpec(_options("-f -w -c --fork --wait --ctty")),
    "ionice": WrapperSpec(_options("-t --ignore"), _options("-c -n --class --classdata")),
    "xargs": WrapperSpec(
        _options("-0 -r -t -x -o --null --no-run-if-empty --verbose --exit --open-tty"),
        _options(
            "-n -L -I -P -d -E -s -a --max-args --max-lines --replace --max-procs --delimiter --eof --max-chars "
            "--arg-file"
        ),
        reads_arguments=True,
    ),
}
SHELLS = frozenset({"sh", "bash", "dash", "zsh", "ksh", "mksh", "ash"})
_SHELL_VALUE_OPTIONS = frozenset({"-o", "+o", "-O", "+O", "--rcfile", "--init-file"})
DELETING = frozenset({"rm", "rmdir", "unlink", "shred", "srm"})
_FIND_EXEC = frozenset({"-exec", "-execdir", "-ok", "-okdir"})


class Expansion(Struct):
    """What one simple command amounts to."""

    commands: list[tuple[Words, bool]] = field(default_factory=list)
    """Each command with ``decisive``: True when it must be allowed, False for a wrapper as written."""
    scripts: list[str] = field(default_factory=list)
    """Shell text run by ``sh -c`` or ``eval``, to be parsed in turn."""
    problems: list[str] = field(default_factory=list)


def expand(words: Words, expansion: Expansion | None = None, depth: int = 0) -> Expansion:
    """Find the commands ``words`` runs, looking through wrappers, ``sh -c``, ``eval`` and ``find -exec``."""
    out = expansion if expansion is not None else Expansion()
    name = command_name(words)
    if depth > 8:
        out.problems.append("wrappers nested too deeply to follow")
        out.commands.append((words, True))
    elif name in WRAPPERS:
        _expand_wrapper(words, WRAPPERS[name], out, depth)
    elif name in SHELLS:
        _expand_shell(words, out)
    elif name == "eval":
        _expand_eval(words, out)
    elif name == "trap":
        _expand_trap(words, out)
    elif name == "find":
        _expand_find(words, out, depth)
    else:
        out.commands.append((words, True))
    return out


def command_name(words: Words) -> str | None:
    """The program's name: the first word, without its directory."""
    if not words or words[0] is None:
        return None
    return words[0].rsplit("/", 1)[-1]


def deletes_files(words: Words) -> bool:
    """Whether the command removes files (``rm``, ``rmdir``, ``unlink``, ``shred``, ``find -delete``, ``git rm/clean``)."""
    name = command_name(words)
    if name in DELETING:
        return True
    if name == "find":
        return "-delete" in words
    if name == "git":
        return _git_subcommand(words) in ("rm", "clean")
    return False


def _git_subcommand(words: Words) -> CommandWord:
    skip = False
    for word in words[1:]:
        if skip:
            skip = False
        elif word in ("-C", "-c", "--git-dir", "--work-tree", "--namespace"):
            skip = True
        elif word is None or not word.startswith("-"):
            return word
    return None


def _expand_wrapper(words: Words, spec: WrapperSpec, out: Expansion, depth: int) -> None:
    start = _wrapped_start(words, spec, out)
    if start is None or start >= len(words):
        out.commands.append((words, True))
        return
    out.commands.append((words, False))
    inner = words[start:] + ((None,) if spec.reads_arguments else ())
    expand(inner, out, depth + 1)


def _wrapped_start(words: Words, spec: WrapperSpec, out: Expansion) -> int | None:
    """Where the wrapped command begins, or None when the wrapper's arguments cannot be followed."""
    i = 1
    operands = spec.positional
    while i < len(words):
        word = words[i]
        if word is None:
            return None
        if word == "--":
            return i + 1 + operands
        if word in spec.queries:
            return None
        if word.startswith("-") and len(word) > 1:
            step = _option_width(word, words, i, spec)
            if step is None:
                return None
            i += step
        elif spec.assignments and "=" in word and not word.startswith("="):
            if risky_variable(word.split("=", 1)[0]):
                out.problems.append(f"it sets {word.split('=', 1)[0]}, which can change what a program runs")
            i += 1
        elif operands:
            operands -= 1
            i += 1
        else:
            return i
    return None


def _option_width(word: str, words: Words, i: int, spec: WrapperSpec) -> int | None:
    if word in spec.flags:
        return 1
    if word in spec.takes_value:
        return 2 if i + 1 < len(words) and words[i + 1] is not None else None
    if word.startswith("--") and word.split("=", 1)[0] in spec.takes_value and "=" in word:
        return 1
    if not word.startswith("--") and word[:2] in spec.takes_value:
        return 1
    if spec.numeric_flags and word[1:].isdigit():
        return 1
    return None


def _expand_shell(words: Words, out: Expansion) -> None:
    script_at = _shell_script_index(words)
    if script_at is None:
        out.commands.append((words, True))
        return
    out.commands.append((words, False))
    script = words[script_at] if script_at < len(words) else None
    if script is None:
        out.problems.append(f"the script given to {command_name(words)} -c is only known when it runs")
    else:
        out.scripts.append(script)


def _shell_script_index(words: Words) -> int | None:
    """The index of the script of ``sh -c SCRIPT``, or None when the shell does not run ``-c``."""
    i = 1
    has_c = False
    while i < len(words):
        word = words[i]
        if word is None or word == "--" or not word.startswith(("-", "+")) or len(word) == 1:
            break
        if word in _SHELL_VALUE_OPTIONS:
            i += 2
            continue
        if not word.startswith("--") and "c" in word[1:]:
            has_c = True
        i += 1
    return i if has_c else None


def _expand_eval(words: Words, out: Expansion) -> None:
    out.commands.append((words, False))
    arguments = words[1:]
    if any(word is None for word in arguments):
        out.problems.append("the text given to eval is only known when it runs")
        return
    out.scripts.append(" ".join(word for word in arguments if word is not None))


def _expand_trap(words: Words, out: Expansion) -> None:
    """``trap ACTION SIGNAL...`` runs ACTION later as shell text: parse it like ``eval``'s."""
    arguments = list(words[1:])
    while arguments and arguments[0] in ("-p", "-l", "-P", "--"):
        arguments.pop(0)
    action = arguments[0] if len(arguments) >= 2 else ""
    out.commands.append((words, action in ("", "-")))
    if action is None:
        out.problems.append("the commands given to trap are only known when they run")
    elif action not in ("", "-"):
        out.scripts.append(action)


def _expand_find(words: Words, out: Expansion, depth: int) -> None:
    out.commands.append((words, True))
    i = 0
    while i < len(words):
        if words[i] in _FIND_EXEC:
            end = _find_exec_end(words, i + 1)
            if end is None:
                out.problems.append(f"find {words[i]} without its closing ';' or '+'")
                return
            if end > i + 1:
                expand(words[i + 1 : end], out, depth + 1)
            i = end
        i += 1


def _find_exec_end(words: Sequence[CommandWord], start: int) -> int | None:
    for index in range(start, len(words)):
        if words[index] in (";", "+"):
            return index
    return None
