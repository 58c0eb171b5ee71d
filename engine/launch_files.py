"""The project files a command runs or reads as it starts, each pinned by a hash of its content.

An approval of a command the project defines (an MCP server, later a hook) must cover the code it
runs, not only its text: ``python3 tools/srv.py`` approved once must ask again when ``tools/srv.py``
changes. :func:`launch_files` names those files for an argv, :func:`command_line_files` for a
``sh -c`` string (best effort). Which files:

- every word (the command included, and the value of ``--opt=value``) that resolves, relative to
  the working folder, to an existing path inside the project root;
- an interpreter's script, present or not (``python x.py``, ``node x.js``, ``sh x.sh``, ``uv run x.py``),
  and the module of ``python -m pkg.mod`` (its top-level package folder, or its file);
- what a Python program imports from the first folder on its import path (the script's folder, or
  the working folder for ``-m``): that folder (``tools/``) when it lies below the root and can be
  pinned; else, at the project root, the modules the program imports from it, followed through
  their ``import`` statements, and ``*.py``: which module names the folder offers, so that a module
  added later to shadow an installed one asks again (:mod:`engine.python_imports`);
- the manifests a launcher reads implicitly (``npm``/``npx``/``pnpm``/``yarn``: ``package.json``,
  ``make``: the makefile, ``uv``/``uvx``: ``pyproject.toml``), present or not; the configuration a
  package runner reads from the working folder and the folders above it in the project
  (``.npmrc``, lock files, ``uv.toml``, ``pip.conf``...), present ones; and the local program a
  runner would start in place of a package (``npx NAME``: ``node_modules/.bin/NAME``), present or not.

A file's digest is ``sha256:<hex>``, ``absent``, or ``unpinned: <why>`` (a folder over the cap, a
link out of the project, something that is not a regular file). Files outside the root are the
user's, not the project's, and are not named. Nothing here blocks: files are opened non-blocking and
only regular files are read, each with a size bound.
"""

from __future__ import annotations

import os
import re
import shlex
import shutil
from collections.abc import Sequence
from pathlib import Path

from msgspec import Struct

from engine.file_digest import ABSENT, UNPINNED, is_within, path_digest
from engine.python_imports import imported_modules, module_names_digest, module_sources

_MAX_NESTING = 4
"""How deep ``sh -c`` inside ``sh -c`` is followed."""

_PYTHON_VALUE_FLAGS = frozenset("XW")
_NODE_STOP = frozenset({"-e", "--eval", "-p", "--print"})
_NODE_VALUE_FLAGS = frozenset(
    {"-r", "--require", "--import", "--loader", "--experimental-loader", "--input-type", "-C", "--conditions"}
)
_UV_RUN_VALUE_FLAGS = frozenset(
    {
        "--with", "--with-editable", "--with-requirements", "--python", "-p", "--directory", "--project",
        "--package", "--extra", "--group", "--only-group", "--env-file", "--index", "--default-index",
        "--index-url", "--extra-index-url", "--find-links", "-f",
    }
)  # fmt: skip
_PYTHON = re.compile(r"(python|pypy)(\d+(\.\d+)*)?w?(\.exe)?")
_SHELLS = frozenset({"sh", "bash", "dash", "zsh", "ksh"})
_MANIFESTS: dict[str, tuple[str, ...]] = {
    "npm": ("package.json",),
    "npx": ("package.json",),
    "pnpm": ("package.json",),
    "yarn": ("package.json",),
    "make": ("GNUmakefile", "makefile", "Makefile"),
    "uv": ("pyproject.toml",),
    "uvx": ("pyproject.toml",),
}
_NODE_RUNNER_FILES = (
    *(".npmrc", "package-lock.json", "npm-shrinkwrap.json", "pnpm-lock.yaml", "pnpm-workspace.yaml", ".pnpmfile.cjs"),
    *(".yarnrc", ".yarnrc.yml", "yarn.lock", ".pnp.cjs", "bunfig.toml", "bun.lock", "bun.lockb"),
)
_PYTHON_RUNNER_FILES = ("pyproject.toml", "uv.toml", "uv.lock", "pip.conf", "pip.ini", ".python-version", "pylock.toml")
_RUNNER_FILES: dict[str, tuple[str, ...]] = {
    **dict.fromkeys(("npm", "npx", "pnpm", "yarn", "bun", "bunx"), _NODE_RUNNER_FILES),
    **dict.fromkeys(("uv", "uvx", "pipx", "pip", "pip3"), _PYTHON_RUNNER_FILES),
}
"""The configuration each package runner reads from its working folder (and the folders above): what it fetches and runs."""
_RUNNER_EXEC = {"npx": (), "bunx": (), "npm": ("exec", "x"), "pnpm": ("exec", "dlx"), "yarn": ("exec", "dlx")}
"""Runners that start a package's program (after one of these subcommands, if any): a local one comes first."""
_RUNNER_VALUE_FLAGS = frozenset({"-p", "--package", "-c", "--call", "--prefix", "-w", "--workspace"})
_PREFIX_COMMANDS = frozenset({"exec", "command", "nohup", "time", "builtin"})
_CONTROL = frozenset({";", "&&", "||", "|", "&", "(", ")", "|&", ";;"})
_OUTPUT_REDIRECTS = frozenset({">", ">>", ">&", "&>", "&>>", ">|"})


class NamedFile(Struct, frozen=True):
    """One file a command runs or reads, and what it held when it was looked at."""

    path: str
    """As shown to a person: relative to the project root (a folder ends in ``/``; the root itself is ``.``)."""
    digest: str
    """``sha256:<hex>``, ``absent``, or ``unpinned: <why>``."""

    @property
    def pinned(self) -> bool:
        """Whether a change to this file changes its digest (false for ``unpinned: ...``)."""
        return not self.digest.startswith(UNPINNED)


def launch_files(argv: Sequence[str], cwd: Path, root: Path) -> tuple[NamedFile, ...]:
    """The project files ``argv``, started in ``cwd``, runs or reads as it starts; sorted by path."""
    finder = _Finder(root)
    finder.argv(list(argv), _real(cwd), depth=0)
    return finder.found()


def command_line_files(command: str, cwd: Path, root: Path) -> tuple[NamedFile, ...]:
    """Like :func:`launch_files`, for a shell command line (split with shlex, best effort); sorted by path."""
    finder = _Finder(root)
    finder.command_line(command, _real(cwd), depth=0)
    return finder.found()


def short_digest(digest: str) -> str:
    """``sha256:`` and the first 12 hex digits, for a person; other digests as they are."""
    kind, sep, value = digest.partition(":")
    return f"{kind}:{value[:12]}" if sep and kind == "sha256" else digest


class _Finder:
    """Collects the named files of one command (or command line), each path once."""

    def __init__(self, root: Path) -> None:
        self.root = _real(root)
        self._named: dict[str, NamedFile] = {}

    def found(self) -> tuple[NamedFile, ...]:
        return tuple(sorted(self._named.values(), key=lambda named: named.path))

    def command_line(self, text: str, cwd: Path, depth: int) -> None:
        if depth > _MAX_NESTING:
            return
        for segment in _segments(_shell_words(text)):
            words = _without_assignments(segment)
            while words and words[0] in _PREFIX_COMMANDS:
                words = words[1:]
            if words[:1] == ["cd"]:
                cwd = _real(cwd / words[1]) if len(words) > 1 else cwd
                continue
            self.argv(words, cwd, depth)

    def argv(self, words: list[str], cwd: Path, depth: int) -> None:
        if not words:
            return
        self._program(words[0], cwd)
        for word in words[1:]:
            self._word(word, cwd)
        program = _program_name(words[0])
        args = words[1:]
        if program in _MANIFESTS:
            self._manifest(program, cwd)
        if program in _RUNNER_FILES:
            self._runner_files(program, cwd)
        if program in _RUNNER_EXEC:
            self._local_program(program, args, cwd)
        if _PYTHON.fullmatch(program):
            self._python(args, cwd)
        elif program in ("node", "nodejs", "bun", "deno"):
            self._node(args, cwd)
        elif program in _SHELLS:
            self._shell(args, cwd, depth)
        elif program == "uv" and args[:1] == ["run"]:
            self._uv_run(args[1:], cwd, depth)
        elif program == "env":
            self.argv(_without_assignments([w for w in args if not w.startswith("-")]), cwd, depth)

    def _program(self, word: str, cwd: Path) -> None:
        self._word(word, cwd)
        # Names the file to pin, runs nothing: a hook's shell finds programs on PATH (inside the sandbox).
        found = None if "/" in word else shutil.which(word)  # noqa: TID251
        if found is not None:
            self._pin(_locate(found, cwd), absent_ok=False)

    def _word(self, word: str, cwd: Path) -> None:
        candidates = [word]
        if word.startswith("-") and "=" in word:
            candidates.append(word.partition("=")[2])
        for candidate in candidates:
            if candidate and not candidate.startswith("-"):
                self._pin(_locate(candidate, cwd), absent_ok=False)

    def _script(self, word: str, cwd: Path) -> None:
        if word and word != "-":
            self._pin(_locate(word, cwd), absent_ok=True)

    def _manifest(self, program: str, cwd: Path) -> None:
        names = _MANIFESTS[program]
        present = [name for name in names if os.path.lexists(cwd / name)]
        for name in present or names[-1:]:
            self._pin(cwd / name, absent_ok=True)

    def _python(self, args: list[str], cwd: Path) -> None:
        index = 0
        while index < len(args):
            word = args[index]
            if word == "--" or not word.startswith("-") or word == "-":
                if word == "--":
                    index += 1
                if index < len(args):
                    self._python_script(args[index], cwd)
                return
            if word.startswith("--"):
                index += 2 if word == "--check-hash-based-pycs" else 1
                continue
            for position, letter in enumerate(word[1:], start=1):
                rest = word[position + 1 :]
                if letter == "c":
                    return
                if letter == "m":
                    module = rest or (args[index + 1] if index + 1 < len(args) else "")
                    self._module(module, cwd)
                    return
                if letter in _PYTHON_VALUE_FLAGS:
                    index += 0 if rest else 1
                    break
            index += 1

    def _module(self, module: str, cwd: Path) -> None:
        top = module.split(".")[0]
        if not top:
            return
        for base in dict.fromkeys((cwd, self.root, self.root / "src")):
            for candidate in (base / top, base / f"{top}.py"):
                if os.path.lexists(candidate):
                    self._pin(candidate, absent_ok=False)
                    self._import_folder(cwd, candidate)
                    return
        self._pin(cwd / top, absent_ok=True)  # creating it later would shadow an installed module

    def _python_script(self, word: str, cwd: Path) -> None:
        self._script(word, cwd)
        location = _locate(word, cwd) if word != "-" else None
        if location is not None and location.is_file():
            self._import_folder(location.parent, location)

    def _import_folder(self, folder: Path, entry: Path) -> None:
        """Pin what a Python program started from ``entry`` can import from ``folder``, first on its import path."""
        if not is_within(folder, self.root):
            return
        if folder != self.root:
            self._pin(folder, absent_ok=False)
            pinned = self._named.get(folder.relative_to(self.root).as_posix())
            if pinned is not None and pinned.pinned:
                return
        for module in imported_modules(module_sources(entry), folder):
            self._pin(module, absent_ok=False)
        key = (folder.relative_to(self.root) / "*.py").as_posix()
        self._named.setdefault(key, NamedFile(key, module_names_digest(folder)))

    def _runner_files(self, program: str, cwd: Path) -> None:
        folder = cwd
        while is_within(folder, self.root):
            for name in _RUNNER_FILES[program]:
                if os.path.lexists(folder / name):
                    self._pin(folder / name, absent_ok=False)
            if folder == self.root:
                return
            folder = folder.parent

    def _local_program(self, program: str, args: list[str], cwd: Path) -> None:
        subcommands = _RUNNER_EXEC[program]
        if subcommands:
            if not args or args[0] not in subcommands:
                return
            args = args[1:]
        index = 0
        while index < len(args) and args[index].startswith("-"):
            index += 2 if args[index] in _RUNNER_VALUE_FLAGS else 1
        if index < len(args):
            package = re.sub(r"(?<=.)@.*$", "", args[index])  # without its version: @scope/name@1 -> @scope/name
            self._pin(cwd / "node_modules" / ".bin" / package.rsplit("/", 1)[-1], absent_ok=True)

    def _node(self, args: list[str], cwd: Path) -> None:
        index = 0
        while index < len(args):
            word = args[index]
            if word in _NODE_STOP:
                return
            if not word.startswith("-") or word == "-":
                self._script(word, cwd)
                return
            index += 2 if word in _NODE_VALUE_FLAGS else 1

    def _shell(self, args: list[str], cwd: Path, depth: int) -> None:
        index = 0
        while index < len(args):
            word = args[index]
            if word.startswith("-") and not word.startswith("--") and "c" in word[1:]:
                if index + 1 < len(args):
                    self.command_line(args[index + 1], cwd, depth + 1)
                return
            if not word.startswith(("-", "+")):
                self._script(word, cwd)
                return
            index += 2 if word in ("-o", "+o") else 1

    def _uv_run(self, args: list[str], cwd: Path, depth: int) -> None:
        index = 0
        while index < len(args):
            word = args[index]
            if word in ("-m", "--module"):
                if index + 1 < len(args):
                    self._module(args[index + 1], cwd)
                return
            if word in ("-s", "--script"):
                if index + 1 < len(args):
                    self._script(args[index + 1], cwd)
                return
            if not word.startswith("-"):
                if word.endswith((".py", ".pyw")):
                    self._script(word, cwd)
                else:
                    self.argv(args[index:], cwd, depth)
                return
            index += 2 if word in _UV_RUN_VALUE_FLAGS else 1

    def _pin(self, location: Path | None, *, absent_ok: bool) -> None:
        if location is None:
            return
        if not is_within(location, self.root):
            return
        key = location.relative_to(self.root).as_posix()
        if key in self._named:
            return
        digest = path_digest(location, self.root)
        if digest == ABSENT and not absent_ok:
            return
        shown = f"{key}/" if key != "." and not location.is_symlink() and location.is_dir() else key
        self._named[key] = NamedFile(shown, digest)


def _real(path: Path | str) -> Path:
    return Path(os.path.realpath(path))


def _locate(word: str, cwd: Path) -> Path | None:
    """Where ``word`` names, from ``cwd``: every folder on the way resolved, the last name itself kept (it may be a link)."""
    try:
        joined = os.path.join(cwd, word)
        head, tail = os.path.split(joined)
        if tail in ("", ".", ".."):
            return _real(joined)
        return _real(head) / tail
    except (ValueError, OSError):  # a NUL byte, a name too long
        return None


def _program_name(word: str) -> str:
    return os.path.basename(word).lower()


def _shell_words(text: str) -> list[str]:
    lexer = shlex.shlex(text, posix=True, punctuation_chars=";&|()<>")
    lexer.whitespace_split = True
    lexer.commenters = "#"
    try:
        return list(lexer)
    except ValueError:  # unbalanced quotes: the words as they are
        return text.split()


def _segments(words: list[str]) -> list[list[str]]:
    """The simple commands of a tokenised command line; an output redirection's target is left out."""
    segments: list[list[str]] = [[]]
    skip_next = False
    for word in words:
        if skip_next:
            skip_next = False
        elif word in _CONTROL:
            segments.append([])
        elif word in _OUTPUT_REDIRECTS:
            skip_next = True
        elif word not in ("<", "<<", "<<<"):
            segments[-1].append(word)
    return [segment for segment in segments if segment]


def _without_assignments(words: list[str]) -> list[str]:
    """``words`` less the leading ``NAME=value`` assignments."""
    index = 0
    while index < len(words) and "=" in words[index] and words[index].partition("=")[0].isidentifier():
        index += 1
    return words[index:]
