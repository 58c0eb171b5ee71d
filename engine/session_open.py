"""Opening a session: the agent built, the session file opened (or reopened), the toolsets and capabilities started."""

from __future__ import annotations

from collections.abc import Sequence

from engine.agent import build_agent, check_model_keys, configured_capabilities
from engine.capabilities import Capability
from engine.checkpoints.attach import checkpoints_for
from engine.config.loader import SessionConfig
from engine.conversation import Conversation
from engine.model.types import Message, ModelClient
from engine.paths import scratch_dir, user_data_dir
from engine.policy.gate import Approver
from engine.redaction.scrubber import Scrubber
from engine.session import Session
from engine.session_store import LoadedSession, SessionStore, SessionWriter
from engine.stores.housekeeping import keep_stores_small


async def open_session(
    config: SessionConfig,
    *,
    approver: Approver | None,
    title: str = "",
    resume: LoadedSession | None = None,
    history: Sequence[Message] = (),
    client: ModelClient | None = None,
    capabilities: Sequence[Capability] = (),
) -> Session:
    """Build the agent, open (or, for ``resume``, reopen) the session file, and start the toolsets.

    ``resume`` continues a saved session (its messages and compactions, appending to its file; what was
    skipped of a damaged file is one of the session's notices);
    ``history`` seeds a new conversation instead. ``capabilities`` are added after the configured
    ones and checkpoints. Nothing here reads settings or permission files: ``load_config`` already did.
    """
    if resume is not None and history:
        raise ValueError("give either a session to resume or a history, not both")
    check_model_keys(config, main=client is None)  # before the session file: a missing key is exit 2, nothing left
    own = configured_capabilities(config)  # ConfigError here (a webhook's secret unset) leaves no session file
    writer = _open_writer(config, title, resume) if config.persist else None
    if resume is not None:
        conversation = Conversation(resume.messages, resume.compactions)
    else:
        conversation = Conversation(history)
    if writer is not None:
        conversation.record_to(writer)
    try:
        keep_stores_small(config, keep=(resume.info.id,) if resume is not None else ())  # once a day at most
        checkpoints = checkpoints_for(config)
        agent = build_agent(
            config,
            approver=approver,
            data_dir=scratch_dir(config.cwd),
            capabilities=[*own, *((checkpoints,) if checkpoints else ()), *capabilities],
            client=client,
            conversation=conversation,
        )
        session = Session(agent, writer, config, notices=(resume.notice,) if resume and resume.notice else ())
        await session.start()
    except BaseException:
        if writer is not None:
            writer.close()
        raise
    return session


def _open_writer(config: SessionConfig, title: str, resume: LoadedSession | None) -> SessionWriter:
    store = SessionStore(user_data_dir() / "sessions")
    scrub = Scrubber.from_environment(known=[("model-api-key", config.model.api_key)])
    if resume is not None:
        return store.reopen(resume.info.id, scrub=scrub)
    return store.create(cwd=config.cwd, model=config.model.model, scrub=scrub, title=title)
