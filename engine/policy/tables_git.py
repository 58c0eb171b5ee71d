"""git, as hive's defaults see it: what each subcommand can do, the options that ask, the files options name.

Read-only subcommands and writes inside the project are allowed; what brings in files from other
commits (a checkout of a branch, a merge) only when the sandbox keeps ``.ironhive/`` and git's hooks
read-only; options and subcommands that run programs, change configuration or reach outside ask.
So does what destroys work hive's undo cannot bring back, for undo restores files, never ``.git``:
rewriting or deleting branches, tags, stashes and the reflog (``reset --hard``, ``branch -D``,
``stash drop``, ``rebase``, ``reflog expire``, ``gc``, ``push --force``), and throwing away the index,
uncommitted changes of the whole tree or untracked files (``checkout .``, ``restore .``, ``clean``).
A subcommand not listed here has no built-in verdict, so it gets the default action (ask).
"""

from __future__ import annotations

from engine.policy.argspec import IMPORTS_REASON, Operands, Opt, Sub, ToolTable, opt

READ = "it only reads the repository"
WRITE = "it changes files and history inside the project only"
IMPORTS = IMPORTS_REASON
NETWORK = "it reaches outside the project (network, other repositories)"
CONFIG = (
    "it sets git configuration, which names programs git runs (core.pager, core.fsmonitor, core.sshCommand, alias.*)"
)
PLUMBING = "git plumbing writes index entries, objects or files whose paths hive cannot see in the command line"
PATCHES = "it writes the files a patch names, which hive cannot see in the command line"
RUNS = "it runs a program named in its options or in configuration"
_NO_UNDO = "hive's undo does not cover .git"
HISTORY = f"it rewrites history or deletes refs (branches, tags, stashes, the reflog); {_NO_UNDO}"
DISCARDS = f"it throws away uncommitted changes (the index, the files) or moves the branch; {_NO_UNDO}"
UNTRACKED = "it deletes untracked files (with -x ignored ones too: .env, build outputs), which may be the only copy"
OBJECTS = f"it deletes unreachable objects, which may be the only copy of dropped commits and stashes; {_NO_UNDO}"
REMOTE_HISTORY = "it rewrites or deletes history on the remote, for everyone who uses it"
WHOLE_TREE = (r"\.{1,2}/?|\*|:.*", f"a pathspec of the whole tree: it throws away every uncommitted change; {_NO_UNDO}")
"""``.``, ``..``, ``*`` and pathspec magic (``:/``, ``:!x``: everything but x), as operands of checkout and restore."""

_GLOBAL = (
    opt("-C", "required", path="dir"),
    opt("-c", "required", ask=CONFIG),
    opt("--config-env", "required", ask=CONFIG),
    opt("--exec-path", "optional", ask="it makes git run its helper programs from another folder"),
    opt(
        "--git-dir",
        "required",
        ask="it points git at another repository, whose configuration and hooks hive does not know",
    ),
    opt("--work-tree", "required", ask="it lets git read and write the files of another folder"),
    opt("-p --paginate", ask="it runs a pager program"),
    opt("--help", ask="it opens the manual in a pager or a browser"),
    opt("--super-prefix", "required", ask="an internal option of git"),
    opt("--namespace --list-cmds", "required"),
    opt(
        "-P --no-pager --bare --no-replace-objects --literal-pathspecs --glob-pathspecs --noglob-pathspecs "
        "--icase-pathspecs --no-optional-locks --no-advice --no-lazy-fetch --version -v -h --html-path "
        "--man-path --info-path"
    ),
)
_DIFF = (
    opt("--output", "required", path="edit", ask="it writes the output to any file it is given"),
    opt("-O", "required", path="read"),
    opt("--no-index", operands="read"),
    opt("--word-diff-regex --color-words --ws-error-highlight -S -G --find-object --skip-to --rotate-to", "required"),
)
_MESSAGE = (
    opt("-F --file", "required", path="read"),
    opt("-t --template", "required", path="read"),
    opt("--pathspec-from-file", "required", path="read"),
    opt(
        "-m --message -C -c --reuse-message --reedit-message --author --date --fixup --squash --cleanup --trailer",
        "required",
    ),
)
_PICK = (opt("-s --strategy -X --strategy-option -m --mainline --onto -F --file", "required"),)


def _read(*options: Opt) -> Sub:
    return Sub(cls="read", reason=READ, options=options)


def _write(*options: Opt, operands: Operands = "none", deletes: bool = False, links: bool = False) -> Sub:
    return Sub(cls="write", reason=WRITE, options=options, operands=operands, deletes=deletes, links=links)


def _imports(*options: Opt) -> Sub:
    return Sub(cls="imports", reason=IMPORTS, options=options, links=True)


def _ask(reason: str) -> Sub:
    return Sub(cls="ask", reason=reason)


_GREP = Sub(
    cls="read",
    reason=READ,
    operands="none",
    options=(
        opt("-O --open-files-in-pager", "optional", ask="it opens the matches in a program named in the option"),
        opt("--no-index", operands="after_first_read"),
        opt("-f", "required", path="read", gives_pattern=True),
        opt("-e", "required", gives_pattern=True),
        opt("-A -B -C --context --after-context --before-context --max-depth -m --max-count --threads", "required"),
    ),
)
_STASH = Sub(
    cls="write",
    reason=WRITE,
    subcommands={
        "push": _write(opt("-m --message --pathspec-from-file", "required")),
        "save": _write(),
        "list": _read(*_DIFF),
        "show": _read(*_DIFF),
        "pop": _write(links=True),
        "apply": _write(links=True),
        "drop": _ask(HISTORY),
        "clear": _ask(HISTORY),
        "create": _write(),
        "branch": _imports(),
        "store": _ask("it stores any commit as a stash, to be applied later"),
    },
    default="push",
    unknown=_ask("hive's git table does not know this stash subcommand"),
)
_REMOTE = Sub(
    cls="read",
    reason=READ,
    subcommands={"-v": _read(), "get-url": _read()},
    unknown=_ask("it changes the remotes in git's configuration, or contacts them"),
)
_WORKTREE = Sub(
    cls=None,
    subcommands={
        "list": _read(),
        "add": Sub(
            cls="imports",
            reason=IMPORTS,
            operands="first_edit",
            links=True,
            options=(opt("-b -B --reason", "required"),),
        ),
    },
    unknown=_ask("it removes, moves or repairs worktrees"),
)
_BISECT = Sub(
    cls="imports",
    reason=IMPORTS,
    links=True,
    subcommands={
        "run": _ask("it runs a command at every step"),
        "visualize": _ask("it runs a history viewer or a pager"),
        "view": _ask("it runs a history viewer or a pager"),
        "replay": _ask("it replays a log file hive cannot see"),
    },
)

_SUBCOMMANDS: dict[str, Sub] = {
    **{
        name: _read(*_DIFF)
        for name in ("log", "diff", "show", "whatchanged", "diff-tree", "diff-files", "diff-index", "range-diff")
    },
    **{
        name: _read()
        for name in (
            "status",
            "shortlog",
            "describe",
            "rev-parse",
            "rev-list",
            "ls-files",
            "ls-tree",
            "cat-file",
            "name-rev",
            "merge-base",
            "show-ref",
            "for-each-ref",
            "show-branch",
            "count-objects",
            "cherry",
            "check-ignore",
            "check-attr",
            "check-mailmap",
            "version",
            "fsck",
        )
    },
    "reflog": Sub(
        cls="read",
        reason=READ,
        subcommands={
            "show": _read(*_DIFF),
            "list": _read(),
            "exists": _read(),
            "expire": _ask(HISTORY),
            "delete": _ask(HISTORY),
        },
        default="show",
    ),
    **{name: _ask(OBJECTS) for name in ("gc", "prune")},
    "blame": _read(opt("--contents -S --ignore-revs-file", "required", path="read"), opt("-L", "required")),
    "annotate": _read(opt("--contents -S --ignore-revs-file", "required", path="read"), opt("-L", "required")),
    "grep": _GREP,
    "format-patch": _read(*_DIFF, opt("-o --output-directory", "required", path="edit")),
    "archive": _read(
        opt("-o --output", "required", path="edit"),
        opt("--remote", "required", ask=NETWORK),
        opt("--exec", "required", ask="it runs a program on the other side"),
    ),
    "add": _write(opt("--pathspec-from-file", "required", path="read"), opt("--chmod", "required")),
    "commit": _write(*_MESSAGE),
    "tag": _write(*_MESSAGE, opt("-u --local-user", "required"), opt("-d --delete -f --force", ask=HISTORY)),
    "branch": _write(
        opt("--edit-description", ask="it opens an editor"),
        opt("-u --set-upstream-to", "required"),
        opt("-D -f --force -M -C", ask=HISTORY),
    ),
    "mv": _write(operands="edit"),
    "rm": _write(opt("--pathspec-from-file", "required", path="read"), operands="edit", deletes=True),
    "clean": _ask(UNTRACKED),
    "restore": Sub(
        cls="write",
        reason=WRITE,
        operands="edit",
        links=True,
        operand_asks=(WHOLE_TREE,),
        options=(
            opt("-s --source", "required", becomes="imports"),
            opt("--pathspec-from-file", "required", path="read"),
        ),
    ),
    "checkout": Sub(
        cls="write",
        reason=WRITE,
        with_operands="imports",
        after_dashdash="edit",
        links=True,
        operand_asks=(WHOLE_TREE,),
        options=(
            opt("-b --orphan --conflict", "required"),
            opt("-B", "required", ask=HISTORY),
            opt("-f --force", ask=DISCARDS),
            opt("--pathspec-from-file", "required", path="read"),
        ),
    ),
    "switch": Sub(
        cls="write",
        reason=WRITE,
        with_operands="imports",
        links=True,
        options=(
            opt("-c --create --orphan --conflict", "required"),
            opt("-C --force-create", "required", ask=HISTORY),
            opt("-f --force --discard-changes", ask=DISCARDS),
        ),
    ),
    "reset": _write(
        opt("--hard --keep --merge", ask=DISCARDS),
        opt("--pathspec-from-file", "required", path="read"),
        links=True,
    ),
    "stash": _STASH,
    "init": _write(
        opt("--template", "required", ask="it copies hooks from a template folder into the new repository"),
        opt("--separate-git-dir", "required", path="edit"),
        opt("-b --initial-branch --object-format --ref-format", "required"),
        operands="edit",
    ),
    "merge": _imports(*_PICK),
    "rebase": Sub(
        cls="ask",
        reason=f"it rewrites the branch's commits; {_NO_UNDO}",
        links=True,
        options=(*_PICK, opt("-x --exec", "required", ask="it runs a command after every commit it makes")),
    ),
    "cherry-pick": _imports(*_PICK),
    "revert": _imports(*_PICK),
    "bisect": _BISECT,
    "worktree": _WORKTREE,
    "remote": _REMOTE,
    **{name: _ask(NETWORK) for name in ("clone", "fetch", "pull", "ls-remote", "submodule", "request-pull")},
    "push": Sub(
        cls="ask",
        reason=NETWORK,
        options=(
            opt("-f --force --force-with-lease --force-if-includes --mirror -d --delete --prune", ask=REMOTE_HISTORY),
        ),
        operand_asks=((r"[+:].*", f"a refspec starting with + forces the update, with : deletes; {REMOTE_HISTORY}"),),
    ),
    "config": _ask("it reads or changes git's configuration: credential settings, tokens, programs git runs"),
    **{
        name: _ask("it prints or stores passwords")
        for name in ("credential", "credential-store", "credential-cache", "credential-netrc")
    },
    **{
        name: _ask(RUNS)
        for name in ("difftool", "mergetool", "merge-index", "merge-one-file", "web--browse", "instaweb")
    },
    "filter-branch": _ask(f"it rewrites every commit, running the shell commands given in its options; {_NO_UNDO}"),
    "help": _ask("it opens the manual in a pager or a browser"),
    "maintenance": _ask("it registers scheduled jobs in the user's configuration"),
    "am": _ask(PATCHES),
    "apply": _ask(PATCHES),
    **{
        name: _ask(PLUMBING)
        for name in (
            "update-index",
            "checkout-index",
            "read-tree",
            "write-tree",
            "commit-tree",
            "hash-object",
            "symbolic-ref",
            "mktree",
            "mktag",
            "unpack-objects",
            "fast-import",
            "replace",
            "merge-file",
            "sparse-checkout",
        )
    },
    "update-ref": Sub(cls="ask", reason=PLUMBING, options=(opt("-d", ask=HISTORY),)),
}

GIT = ToolTable(
    name="git",
    options=_GLOBAL,
    subcommands=_SUBCOMMANDS,
    main=Sub(cls="read", reason=READ),
    unknown_option="an option of git itself that hive's table does not know",
)
