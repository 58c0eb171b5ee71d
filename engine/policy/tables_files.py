"""Common file tools: which of their arguments are files read or written, so the path rules judge them.

These tables give no verdict of their own (the rules decide whether ``cp`` may run at all); they
make ``cp notes.txt .ironhive/permissions.yaml`` an edit of ``.ironhive/permissions.yaml`` and
``cat secrets/key.txt`` a read of ``secrets/key.txt``, whichever rule allowed the command. A few
options that run programs ask whatever the rules say.
"""

from __future__ import annotations

from engine.policy.argspec import Operands, Opt, Sub, ToolTable, opt

_TARGET = opt("-t --target-directory", "required", path="edit", operands="read")
_BACKUP = (opt("-S --suffix", "required"), opt("--backup --reflink --preserve --sparse", "optional"))


def _files(name: str, operands: Operands, *options: Opt, deletes: bool = False, links: bool = False) -> ToolTable:
    return ToolTable(name=name, main=Sub(cls=None, operands=operands, options=options, deletes=deletes, links=links))


def _readers(names: str, *options: Opt) -> list[ToolTable]:
    return [_files(name, "read", *options) for name in names.split()]


_GREP_OPTIONS = (
    opt("-e --regexp", "required", gives_pattern=True),
    opt("-f --file", "required", path="read", gives_pattern=True),
    opt("--exclude-from --ignore-file", "required", path="read"),
    opt("-m --max-count -A -B -C --context -d -D --include --exclude --label -g --glob -t -T --type", "required"),
)

FILE_TABLES: list[ToolTable] = [
    *_readers("cat tac nl od xxd hexdump file stat strings wc md5sum sha1sum sha256sum sha512sum cmp diff"),
    *_readers("less more", opt("-o --log-file -O --LOG-FILE", "required", path="edit")),
    *_readers("head tail", opt("-n --lines -c --bytes --pid -s --sleep-interval", "required")),
    *_readers("ls du tree", opt("-I --ignore --block-size --time-style --format -w --width", "required")),
    _files(
        "sort",
        "read",
        opt("-o --output", "required", path="edit"),
        opt("-T --temporary-directory", "required", path="edit"),
        opt("--files0-from", "required", path="read"),
        opt("--compress-program", "required", ask="it runs the program it is given"),
        opt("-k --key -t --field-separator -S --buffer-size --parallel", "required"),
    ),
    _files("uniq", "in_out", opt("-f --skip-fields -s --skip-chars -w --check-chars", "required")),
    *(_files(name, "after_first_read", *_GREP_OPTIONS) for name in ("grep", "egrep", "fgrep")),
    _files(
        "rg",
        "after_first_read",
        *_GREP_OPTIONS,
        opt("--pre", "required", ask="it runs the program it is given on every file"),
    ),
    _files("cp", "copy", _TARGET, *_BACKUP, opt("-s --symbolic-link -l --link", links=True)),
    _files("mv", "edit", _TARGET, *_BACKUP),
    _files("ln", "last_edit", _TARGET, *_BACKUP, links=True),
    *(_files(name, "edit", deletes=True) for name in ("rm", "rmdir", "unlink", "shred")),
    _files("touch", "edit", opt("-r --reference", "required", path="read"), opt("-d --date -t", "required")),
    _files("mkdir", "edit", opt("-m --mode", "required")),
    _files("tee", "edit"),
    _files("truncate", "edit", opt("-s --size", "required"), opt("-r --reference", "required", path="read")),
    *(
        _files(name, "after_first_edit", opt("--reference", "required", path="read", operands="edit"))
        for name in ("chmod", "chown", "chgrp")
    ),
    _files(
        "sed",
        "after_first_read",
        opt("-i --in-place", "optional", operands="after_first_edit"),
        opt("-e --expression", "required", gives_pattern=True),
        opt("-f --file", "required", path="read", gives_pattern=True),
        opt("-l --line-length", "required"),
    ),
]
