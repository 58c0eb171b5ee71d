"""``/fork [ID]``: go on in a new session that starts from a copy of this conversation (or of session ID)."""

from __future__ import annotations

from rich.text import Text

from engine.errors import HiveError
from hive_cli.repl.state import ReplState
from hive_cli.repl.view import ReplView
from hive_cli.terminal_text import visible


async def fork_command(state: ReplState, view: ReplView, arg: str) -> None:
    """Fork ``arg`` (a session id), else the current conversation; continue in the fork, the original kept as it was."""
    from engine.sessions.copies import default_scrub, fork_session

    target = arg or _current(state)
    if target is None:
        view.print(Text("Nothing to fork yet: say something first, or /fork ID.", style="dim"))
        return
    try:
        forked = fork_session(state.store, target, default_scrub())
        loaded = state.store.claim(forked.id)
    except HiveError as error:
        view.print(Text(visible(str(error)), style="red"))
        return
    await state.load(loaded)
    if arg:
        from hive_cli.repl.transcript import show_transcript

        show_transcript(view, loaded)
    view.print(Text(f"Forked {target} into {forked.id}: you go on in the fork; {target} stays as it was.", style="dim"))


def _current(state: ReplState) -> str | None:
    """The id of the conversation on screen, when its session file holds anything yet."""
    session_id = state.session.id if state.session is not None else None
    if session_id is None and state.resumed is not None:
        session_id = state.resumed.info.id
    if session_id is None or not (state.store.root / f"{session_id}.jsonl").is_file():
        return None
    return session_id
