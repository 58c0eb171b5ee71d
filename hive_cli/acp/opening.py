"""Opening hive sessions for the editor: a new one in the editor's folder, or a saved one by its id.

The same sessions as the REPL's and ``hive run``'s (one folder of session files): one started in the
editor continues in the terminal with ``hive --resume ID``, and one started in the terminal loads here.
"""

from __future__ import annotations

from pathlib import Path

from engine.agent import check_model_keys, needs_litellm
from engine.config.loader import Overrides, SessionConfig, load_config
from engine.errors import UserError
from engine.model import litellm_import
from engine.model.model_check import check_provider_named
from engine.paths import user_data_dir
from engine.session_open import open_session
from engine.session_store import LoadedSession, SessionStore
from engine.workspace import open_workspace
from hive_cli.acp.host import EditorSession
from hive_cli.acp.permission import EditorApprover, PermissionAsker
from hive_cli.elicitation_notes import session_with_elicitation
from hive_cli.terminal_text import echo


def session_config(cwd: str, overrides: Overrides) -> SessionConfig:
    """The configuration for a session rooted at the editor's ``cwd`` (an absolute folder that exists)."""
    folder = Path(cwd)
    if not folder.is_absolute() or not folder.is_dir():
        raise UserError(f"the session's folder {cwd!r} is not an absolute path to a folder")
    config = session_with_elicitation(load_config(open_workspace(folder), overrides), "decline")
    check_provider_named(config.model.model, config.model.source, config.model.api_base)
    check_model_keys(config)
    if needs_litellm(config):
        litellm_import.preload()
    return config


async def open_new(config: SessionConfig, editor: PermissionAsker) -> EditorSession:
    """A new hive session (its file written as it goes)."""
    approver = EditorApprover(editor, config.cwd, config.file_options.editor)
    session = await open_session(config, approver=approver, title="(from the editor)")
    return await _ready(EditorSession(session, approver))


def claim_saved(session_id: str) -> LoadedSession:
    """The saved session, held for this process (``SessionBusy`` when another process writes it)."""
    return SessionStore(user_data_dir() / "sessions").claim(session_id)


async def open_saved(config: SessionConfig, saved: LoadedSession, editor: PermissionAsker) -> EditorSession:
    """Reopen a claimed saved session, appending to its file."""
    approver = EditorApprover(editor, config.cwd, config.file_options.editor)
    try:
        session = await open_session(config, approver=approver, resume=saved)
    except BaseException:
        release_saved(saved.info.id)
        raise
    session.answer_unanswered("Interrupted: hive stopped before this call ended.")
    return await _ready(EditorSession(session, approver, claimed=saved.info.id))


def release_saved(session_id: str) -> None:
    """Let go of a claimed saved session."""
    SessionStore(user_data_dir() / "sessions").unclaim(session_id)


async def _ready(editor_session: EditorSession) -> EditorSession:
    notices = await editor_session.session.wait_for_mcp()  # the first prompt sees the servers' tools
    for notice in (*editor_session.session.notices, *notices):
        echo(f"hive: {notice}", err=True)  # stderr: the editor's log of the agent
    session_id = editor_session.session.id
    if session_id is None:
        raise UserError("hive acp needs saved sessions: the session has no id (persisting is off)")
    editor_session.approver.session_id = session_id
    return editor_session
