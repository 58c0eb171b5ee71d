"""The undo property: after any sequence of writes, edits, deletes and shell changes, undo gives back the tree."""

from __future__ import annotations

import tempfile
from pathlib import Path

from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from engine.checkpoints.undo import pending, revert
from tests.engine.checkpoints.helpers import Workspace, picture, workspace

NAMES = ("a.txt", "b.txt", "d/c.txt", "d/e/f.txt")
TEXT = st.text(alphabet="xyz\n", max_size=12)
SHELL = st.sampled_from(
    [
        "rm -f {p}",
        "printf %s {t} > {p}",
        "printf %s {t} >> {p}",
        "chmod 755 {p} 2>/dev/null || true",
        "mv {p} {q} 2>/dev/null || true",
        "cp {p} {q} 2>/dev/null || true",
        "sed -i s/x/y/g {p} 2>/dev/null || true",
        "rm -rf d",
        "mkdir -p d/e/g && ln -sf ../a.txt d/link",
    ]
)
STEP = st.one_of(
    st.tuples(st.just("write"), st.sampled_from(NAMES), TEXT),
    st.tuples(st.just("edit"), st.sampled_from(NAMES), TEXT),
    st.tuples(st.just("shell"), SHELL, st.tuples(st.sampled_from(NAMES), st.sampled_from(NAMES), TEXT)),
)


def apply(ws: Workspace, step: tuple[object, ...]) -> None:
    kind = step[0]
    if kind == "write":
        ws.call("write_file", path=step[1], content=step[2])
    elif kind == "edit":
        path = ws.root / str(step[1])
        old = path.read_text() if path.is_file() and not path.is_symlink() else ""
        if old:
            ws.call("edit_file", path=step[1], old_string=old, new_string=str(step[2]) + "!")
    else:
        p, q, t = step[2]  # type: ignore[misc]
        ws.call("execute_command", command=str(step[1]).format(p=p, q=q, t=repr(t + "x")))


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    initial=st.dictionaries(st.sampled_from(NAMES), TEXT, max_size=4),
    turns=st.lists(st.lists(st.lists(STEP, min_size=1, max_size=4), min_size=1, max_size=2), min_size=1, max_size=2),
)
@example(  # a later round of the turn puts back what an earlier one changed: no checkpoint is left
    initial={"a.txt": ""}, turns=[[[("write", "a.txt", "x")], [("write", "a.txt", "")]]]
)
def test_undo_restores_the_tree_byte_for_byte(initial: dict[str, str], turns: list[list[list[tuple]]]) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        ws = workspace(Path(tmp))
        for name, text in initial.items():
            (ws.root / name).parent.mkdir(parents=True, exist_ok=True)
            (ws.root / name).write_text(text)
        pictures = [picture(ws.root)]
        for turn in turns:
            for number, steps in enumerate(turn):
                for step in steps:
                    apply(ws, step)
                ws.end_round(first=number == 0, last=number == len(turn) - 1)
            pictures.append(picture(ws.root))
        for before, after in reversed(list(zip(pictures, pictures[1:], strict=False))):
            if before == after:
                continue  # a turn that changed nothing in the end leaves no checkpoint
            revert(pending(ws.store)[0], ws.store)
            assert picture(ws.root) == before
        assert pending(ws.store) == []
