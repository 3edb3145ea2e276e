"""The few operations the rest of hopkit needs from the database.

Corpora and questions go in once (:meth:`Store.add_corpus`); a run is
registered by its full configuration (:meth:`Store.ensure_run`); each question's
result is written in its own short transaction as soon as it is known
(:meth:`Store.record_result`), so a killed process loses at most the question
in flight and a restarted run skips what :meth:`Store.finished_query_ids` lists.
"""

from __future__ import annotations

from hopkit.store.claims import ClaimStore
from hopkit.store.connection import DBConnection
from hopkit.store.corpus_tables import CorpusTables
from hopkit.store.named_corpora import NamedCorpora
from hopkit.store.run_tables import RunTables
from hopkit.store.verdicts import VerdictStore


class Store(CorpusTables, RunTables):
    """Corpora, questions, gold, runs and per-question results in one database.

    Args:
        session_factory: a SQLAlchemy session factory whose tables exist, e.g.
            ``DBConnection.from_config(url).get_session_factory()``.
    """

    @classmethod
    def connect(cls, url: str | None = None) -> Store:
        """Open the store at ``url`` (else ``$HOPKIT_DB_URL``, else the default SQLite file).

        Raises:
            StoreError: if the database cannot be reached.
        """
        return cls(DBConnection.from_config(url).get_session_factory())

    @property
    def verdicts(self) -> VerdictStore:
        """The LLM judges' verdicts on this store's runs (the same database)."""
        return VerdictStore(self._factory)

    @property
    def corpora(self) -> NamedCorpora:
        """The corpora stored once on their own, for datasets to retrieve from (the same database)."""
        return NamedCorpora(self._factory)

    @property
    def claims(self) -> ClaimStore:
        """Which driver is answering which question of a run now (the same database)."""
        return ClaimStore(self._factory)

    @property
    def location(self) -> str:
        """The database's URL with any password masked, for messages ("the database" if unknown)."""
        return self._where()
