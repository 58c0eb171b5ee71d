"""The prompt: persistent history per project, multi-line input, completion, and the status line.

Enter sends; Alt+Enter (or Esc then Enter) inserts a newline; pasted text keeps its newlines and stays
one message. Completion offers slash commands after ``/`` and paths after ``@``; the menu shows their
names and descriptions (a project's files and commands, a server's prompts) with control characters as escapes.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path

from prompt_toolkit import PromptSession
from prompt_toolkit.completion import CompleteEvent, Completer, Completion
from prompt_toolkit.document import Document
from prompt_toolkit.formatted_text import HTML, AnyFormattedText
from prompt_toolkit.history import FileHistory
from prompt_toolkit.key_binding import KeyBindings, KeyPressEvent

from engine.paths import project_root, unusable_user_dir, user_data_dir
from engine.private_files import open_private, private_dir
from hive_cli.terminal_text import visible

MAX_PATH_COMPLETIONS = 50


class HiveCompleter(Completer):
    """Slash commands at the start of the line, file paths after ``@``.

    ``commands`` are fixed (the built-ins, a server's prompts); ``more`` gives the others at each Tab
    (the custom commands, which come and go with their files).
    """

    def __init__(
        self,
        commands: Sequence[tuple[str, str]],
        cwd: Path,
        more: Callable[[], Sequence[tuple[str, str]]] | None = None,
    ) -> None:
        self.commands = commands
        self.cwd = cwd
        self.more = more

    def get_completions(self, document: Document, complete_event: CompleteEvent) -> Iterable[Completion]:
        before = document.text_before_cursor
        if before.startswith("/") and " " not in before:
            for name, help_text in [*self.commands, *(self.more() if self.more else ())]:
                if name.startswith(before[1:]):
                    yield Completion(
                        "/" + name,
                        start_position=-len(before),
                        display=visible("/" + name),
                        display_meta=visible(help_text),
                    )
            return
        word = before.split()[-1] if before.split() and not before.endswith(" ") else ""
        if word.startswith("@"):
            yield from self._paths(word[1:])

    def _paths(self, partial: str) -> Iterable[Completion]:
        folder, _, stem = partial.rpartition("/")
        base = (self.cwd / folder) if folder else self.cwd
        try:
            entries = sorted(os.scandir(base), key=lambda e: e.name)
        except OSError:
            return
        shown = 0
        for entry in entries:
            if not entry.name.startswith(stem) or (entry.name.startswith(".") and not stem.startswith(".")):
                continue
            suffix = "/" if entry.is_dir() else ""
            text = f"{folder}/{entry.name}" if folder else entry.name
            yield Completion(text + suffix, start_position=-len(partial), display=visible(entry.name) + suffix)
            shown += 1
            if shown >= MAX_PATH_COMPLETIONS:
                return


def history_file(cwd: Path) -> Path:
    """The prompt history of this project (one file per project root, under the user data dir)."""
    root = str(project_root(cwd))
    digest = hashlib.sha256(root.encode()).hexdigest()[:16]
    path = user_data_dir() / "history" / f"{digest}.txt"
    try:
        private_dir(path.parent)
        open_private(path, "a").close()  # what was typed (a password, once) is the person's alone
    except OSError as error:
        raise unusable_user_dir(path.parent, error) from error
    return path


def key_bindings() -> KeyBindings:
    """Alt+Enter / Esc Enter insert a newline; Enter sends."""
    bindings = KeyBindings()

    @bindings.add("escape", "enter")
    def _newline(event: KeyPressEvent) -> None:
        event.current_buffer.insert_text("\n")

    return bindings


def make_prompt(
    cwd: Path,
    commands: Sequence[tuple[str, str]],
    status: Callable[[], AnyFormattedText],
    more: Callable[[], Sequence[tuple[str, str]]] | None = None,
) -> PromptSession[str]:
    """The REPL's prompt session; Tab completes in a thread, so listing ``more`` never holds keystrokes back."""
    return PromptSession(
        history=FileHistory(str(history_file(cwd))),
        completer=HiveCompleter(commands, cwd, more),
        complete_in_thread=True,
        complete_while_typing=False,
        key_bindings=key_bindings(),
        bottom_toolbar=status,
        multiline=False,
        enable_history_search=True,
    )


def prompt_message(mode: str) -> HTML:
    """The prompt itself: a short marker coloured by mode."""
    colour = {"plan": "ansiyellow", "work": "ansicyan", "hitl": "ansimagenta"}.get(mode, "ansicyan")
    return HTML(f"<{colour}><b>›</b></{colour}> ")
