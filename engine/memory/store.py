"""The default memory store: one SQLite file (WAL), ranked by FTS5's BM25, or by embeddings when configured.

FTS5 rather than an in-memory BM25 index: it is part of SQLite, keeps its index in the same file
and updates it with each insert, so nothing is rebuilt or loaded at start-up. Its term statistics
span the whole file (every user and project); only the rows of the caller's scope are returned.
With an embedder, each memory's vector is stored beside it (with the model that made it) and
recall ranks the scope's memories by cosine similarity, embedding any that lack a vector first.
Known secret values (hive's secret variables, the model's API key) are replaced by their markers
before a memory is kept: the model may ``remember`` a token it saw.
"""

from __future__ import annotations

import getpass
import json
import re
import sqlite3
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import closing, contextmanager
from pathlib import Path
from typing import TYPE_CHECKING

from engine.errors import UserError
from engine.memory.service import Memory, MemoryScope
from engine.private_files import make_private, private_dir
from engine.redaction.scrubber import Scrubber

if TYPE_CHECKING:
    from engine.model.embeddings import Embedder

_SCHEMA = """
CREATE TABLE IF NOT EXISTS memories (
    id INTEGER PRIMARY KEY,
    user TEXT NOT NULL,
    project TEXT NOT NULL,
    text TEXT NOT NULL,
    tags TEXT NOT NULL,
    created REAL NOT NULL,
    model TEXT,
    vector TEXT
);
CREATE INDEX IF NOT EXISTS memories_scope ON memories (user, project);
CREATE VIRTUAL TABLE IF NOT EXISTS memories_fts USING fts5 (text, tags, tokenize = 'porter unicode61');
"""
_COLUMNS = "m.id, m.project, m.text, m.tags, m.created"
_USER_WIDE = ""
"""The ``project`` of a user-scope memory."""
_TERM = re.compile(r"\w+")
RANKED_MATCHES = 500
"""Notes a query word may match and still count as rare. Recall ranks (BM25) every note matching the query's
rare words, leaving its common words out; a query of common words only gives the newest notes holding all of
them, then the newest holding any. So recall's cost stays bounded however many notes there are (BM25 counts
every note holding each word it ranks, so ranking common words costs as much as there are notes)."""


def current_user() -> str:
    """The login name memories are kept under (``user`` where the system cannot tell)."""
    try:
        return getpass.getuser()
    except (KeyError, OSError):  # no USER/LOGNAME and no password entry (some containers)
        return "user"


class SqliteMemory:
    """Memories of ``user`` in ``project`` (a resolved folder), kept in the SQLite file ``path``.

    Nothing is opened until the first call; each call opens its own connection, so calls may come
    from any thread.
    """

    def __init__(
        self,
        path: Path,
        *,
        project: Path,
        user: str | None = None,
        embedder: Embedder | None = None,
        embedding_model: str = "",
        scrub: Callable[[str], str] | None = None,
    ) -> None:
        """``scrub``: what every text passes before it is kept (by default the known secrets of hive's environment)."""
        self.path = path
        self.project = str(project)
        self.user = user or current_user()
        self._embed = embedder
        self._model = embedding_model
        """Stored with each vector: vectors of another model are made again."""
        self._ready = False
        self._scrub = scrub or Scrubber.from_environment()

    def remember(self, text: str, scope: MemoryScope = "project", tags: Sequence[str] = ()) -> Memory:
        """Keep ``text`` (its vector too, when an embedder is set); the new memory."""
        project = self.project if scope == "project" else _USER_WIDE
        text, tags = self._scrub(text), [self._scrub(tag) for tag in tags]
        vector = json.dumps(self._embed([text])[0]) if self._embed else None
        created = time.time()
        with self._connection() as db:
            cursor = db.execute(
                "INSERT INTO memories (user, project, text, tags, created, model, vector) VALUES (?, ?, ?, ?, ?, ?, ?)",
                (self.user, project, text, " ".join(tags), created, self._model if vector else None, vector),
            )
            memory_id = int(cursor.lastrowid or 0)
            db.execute(
                "INSERT INTO memories_fts (rowid, text, tags) VALUES (?, ?, ?)", (memory_id, text, " ".join(tags))
            )
        return Memory(id=memory_id, text=text, scope=scope, tags=tuple(tags), created=created)

    def recall(self, query: str, scope: MemoryScope | None = None, limit: int = 5) -> list[Memory]:
        """The ``limit`` memories of the scope best matching ``query``, best first (none for a query without words).

        By words (BM25), see :data:`RANKED_MATCHES`; by vector, every memory of the scope.
        """
        if not _TERM.search(query):
            return []
        if self._embed is not None:
            return self._recall_by_vector(query, scope, limit)
        where, args = self._scope_filter(scope)
        with self._connection() as db:
            terms, common_only = _ranked_terms(db, _TERM.findall(query))
            if common_only:
                return [self._memory(row, 0.0) for row in _newest_matches(db, terms, where, args, limit)]
            rows = db.execute(_recall_sql(where), (" OR ".join(terms), *args, limit)).fetchall()
        # FTS5's bm25() is lower for better matches; scores here are higher for better ones.
        return [self._memory(row, -row[5]) for row in rows]

    def forget(self, memory_id: int) -> bool:
        """Delete memory ``memory_id`` if it is this user's and visible in this project."""
        where, args = self._scope_filter(None)
        with self._connection() as db:
            deleted = db.execute(f"DELETE FROM memories AS m WHERE m.id = ? AND {where}", (memory_id, *args)).rowcount
            if deleted:
                db.execute("DELETE FROM memories_fts WHERE rowid = ?", (memory_id,))
        return bool(deleted)

    def _recall_by_vector(self, query: str, scope: MemoryScope | None, limit: int) -> list[Memory]:
        from engine.model.embeddings import cosine

        assert self._embed is not None
        where, args = self._scope_filter(scope)
        with self._connection() as db:
            rows = db.execute(f"SELECT {_COLUMNS}, m.model, m.vector FROM memories m WHERE {where}", args).fetchall()
        vectors = self._vectors(rows)
        [wanted] = self._embed([query])
        scored = [self._memory(row, cosine(wanted, vectors[row[0]])) for row in rows]
        return sorted(scored, key=lambda memory: (-memory.score, -memory.id))[:limit]

    def _vectors(self, rows: Sequence[tuple[object, ...]]) -> dict[object, list[float]]:
        """Each row's vector; rows without one of this model are embedded now and their vectors stored."""
        assert self._embed is not None
        stale = [row for row in rows if row[5] != self._model or row[6] is None]
        fresh = (
            dict(zip((row[0] for row in stale), self._embed([str(row[2]) for row in stale]), strict=True))
            if stale
            else {}
        )
        if fresh:
            with self._connection() as db:
                db.executemany(
                    "UPDATE memories SET model = ?, vector = ? WHERE id = ?",
                    [(self._model, json.dumps(vector), memory_id) for memory_id, vector in fresh.items()],
                )
        return {row[0]: fresh[row[0]] if row[0] in fresh else json.loads(str(row[6])) for row in rows}

    def _scope_filter(self, scope: MemoryScope | None) -> tuple[str, tuple[str, ...]]:
        if scope == "project":
            return "m.user = ? AND m.project = ?", (self.user, self.project)
        if scope == "user":
            return "m.user = ? AND m.project = ?", (self.user, _USER_WIDE)
        return "m.user = ? AND m.project IN (?, ?)", (self.user, self.project, _USER_WIDE)

    def _memory(self, row: tuple[object, ...], score: float) -> Memory:
        memory_id, project, text, tags, created = row[:5]
        return Memory(
            id=int(str(memory_id)),
            text=str(text),
            scope="user" if project == _USER_WIDE else "project",
            tags=tuple(str(tags).split()),
            created=float(str(created)),
            score=score,
        )

    @contextmanager
    def _connection(self) -> Iterator[sqlite3.Connection]:
        """A connection in a transaction (committed on success), the schema made on first use."""
        try:
            private_dir(self.path.parent)
            with closing(sqlite3.connect(self.path, timeout=10)) as db:
                if not self._ready:
                    make_private(self.path)  # the notes are the person's: 0600 (SQLite gives its -wal the same)
                    db.execute("PRAGMA journal_mode=WAL")
                    db.executescript(_SCHEMA)
                    self._ready = True
                with db:
                    yield db
        except sqlite3.Error as error:
            raise UserError(f"memory store {self.path} cannot be used: {error}") from error
        except OSError as error:
            raise UserError(f"memory store {self.path} cannot be created: {error.strerror or error}") from error


def _ranked_terms(db: sqlite3.Connection, words: list[str]) -> tuple[list[str], bool]:
    """The query's quoted terms to match, and whether they are all common (none rare)."""
    terms = [f'"{word}"' for word in dict.fromkeys(words)]
    bound = "SELECT count(*) FROM (SELECT 1 FROM memories_fts WHERE memories_fts MATCH ? LIMIT ?)"
    rare = [term for term in terms if db.execute(bound, (term, RANKED_MATCHES + 1)).fetchone()[0] <= RANKED_MATCHES]
    return (rare, False) if rare else (terms, True)


def _recall_sql(where: str) -> str:
    return (
        f"SELECT {_COLUMNS}, bm25(memories_fts) AS score FROM memories_fts JOIN memories m "
        f"ON m.id = memories_fts.rowid WHERE memories_fts MATCH ? AND {where} ORDER BY score, m.id DESC LIMIT ?"
    )


def _newest_matches(
    db: sqlite3.Connection, terms: list[str], where: str, args: tuple[object, ...], limit: int
) -> list[tuple[object, ...]]:
    """The newest notes holding every one of ``terms``, then the newest holding any, ``limit`` in all.

    For a query of common words only: FTS5 walks its index newest first and stops at the limit, where
    ranking (bm25 counts every note holding each word) would cost as much as the notes hold the words.
    """
    newest = (
        f"SELECT {_COLUMNS} FROM memories_fts JOIN memories m ON m.id = memories_fts.rowid "
        f"WHERE memories_fts MATCH ? AND {where} ORDER BY memories_fts.rowid DESC LIMIT ?"
    )
    found: dict[object, tuple[object, ...]] = {}
    for joined in dict.fromkeys((" AND ".join(terms), " OR ".join(terms))):
        if len(found) >= limit:
            break
        for row in db.execute(newest, (joined, *args, limit + len(found))).fetchall():
            found.setdefault(row[0], row)
    return list(found.values())[:limit]
