"""Files as the editor hosting hive holds them: a host (``hive acp``) may offer to read and write through it.

An editor's buffer can hold changes the person has not saved; reading through the editor shows the model
those, and writing through it lets the editor update the open buffer (and its undo history) instead of
finding the file changed behind its back. The file tools judge the path exactly as without an editor
first (resolution, the allowed roots, regular files only, binary sniffing, the write interceptor) and
only then hand the text over; a file the editor does not offer is read and written on disk.
"""

from __future__ import annotations

from pathlib import Path
from typing import Protocol


class EditorFileError(Exception):
    """The editor could not read or write the file; ``str()`` says why, in one line."""


class EditorFiles(Protocol):
    """The host's way to the editor's files. Called from the file tools' worker threads (it may block)."""

    @property
    def reads(self) -> bool:
        """Whether the editor offers to read text files."""
        ...

    @property
    def writes(self) -> bool:
        """Whether the editor offers to write text files."""
        ...

    def read_text(self, path: Path) -> str:
        """The text of ``path`` (absolute, resolved) as the editor has it; :class:`EditorFileError` when it cannot."""
        ...

    def write_text(self, path: Path, content: str) -> None:
        """Have the editor write ``content`` to ``path``; :class:`EditorFileError` when it cannot."""
        ...
