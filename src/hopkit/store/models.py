"""The database tables, as SQLAlchemy 2 typed declarative models.

Nothing outside :mod:`hopkit.store` imports these: the rest of hopkit sees the
records of :mod:`hopkit.records` and :mod:`hopkit.store.records`.

Tables::

    datasets    one row per ingested corpus (name unique, content fingerprint)
    paragraphs  the pooled paragraphs of a dataset; id is local to the dataset
    queries     the questions of a dataset with their gold, in a stable order
    runs        one row per full configuration (id = hash of the configuration)
    results     one row per (run, question); error is NULL when it succeeded;
                usage holds the question's cost (see below)
    verdicts    one row per (run, question, judge): an LLM judge's verdict on the
                run's answer (LLM-judged accuracy); the judge is its model id and
                prompt version; ``correct`` is NULL when its reply was unreadable
    claims      one row per (run, question) being answered now: which driver holds it
                and until when (a lease its driver renews), so drivers sharing a run
                share its questions
    corpora     one row per corpus stored once on its own (``hopkit corpus add``), with
                its source file, passages stored so far and whether it is complete
    corpus_passages  the passages of a named corpus, by position in its source file,
                with the source's own passage id
    dataset_corpora  the named corpus a dataset's questions retrieve from (``ingest
                --on-corpus NAME``), for a dataset with no paragraphs of its own

JSON columns use :class:`sqlalchemy.JSON`, stored as TEXT on SQLite and as
``json`` on PostgreSQL (not ``jsonb``, which would reorder a trace's keys).

A result's cost is the JSON column ``results.usage`` (:meth:`hopkit.usage.Usage.to_dict`).
It is newer than the other columns: :class:`~hopkit.store.connection.DBConnection`
adds it to older databases when it connects, and a row written by an older hopkit
(``usage`` NULL) is read from the columns that held the cost before, ``llm_calls``
to ``total_seconds``. Those columns are still written, copied from ``usage``: they
are NOT NULL without a server default in existing databases, and older hopkit
versions reading the same database need them.
"""

from __future__ import annotations

from datetime import datetime, timezone
from typing import Any

from sqlalchemy import (
    JSON,
    BigInteger,
    Boolean,
    DateTime,
    Float,
    ForeignKey,
    Index,
    Integer,
    String,
    Text,
    UniqueConstraint,
)
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column


def utc_now() -> datetime:
    """The current time, timezone-aware in UTC."""
    return datetime.now(timezone.utc)


class Base(DeclarativeBase):
    """Declarative base of every hopkit table."""


class DatasetRow(Base):
    """An ingested corpus: its name and a fingerprint of its paragraphs."""

    __tablename__ = "datasets"

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    name: Mapped[str] = mapped_column(String(), unique=True, nullable=False)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utc_now)
    fingerprint: Mapped[str] = mapped_column(String(64), nullable=False)


class ParagraphRow(Base):
    """A paragraph of a dataset's pooled corpus."""

    __tablename__ = "paragraphs"

    dataset_id: Mapped[int] = mapped_column(
        ForeignKey("datasets.id", ondelete="CASCADE"), primary_key=True
    )
    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=False)
    title: Mapped[str] = mapped_column(Text, nullable=False)
    text: Mapped[str] = mapped_column(Text, nullable=False)


class QueryRow(Base):
    """A question of a dataset, with its gold answers and supporting paragraphs.

    ``position`` keeps the order of the dataset file; ``main_passage_*`` hold
    IIRC's grounding passage, which is not part of the retrievable corpus.
    """

    __tablename__ = "queries"
    __table_args__ = (UniqueConstraint("dataset_id", "id", name="uq_queries_dataset_query"),)

    dataset_id: Mapped[int] = mapped_column(
        ForeignKey("datasets.id", ondelete="CASCADE"), primary_key=True
    )
    position: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=False)
    id: Mapped[str] = mapped_column(String(), nullable=False)
    text: Mapped[str] = mapped_column(Text, nullable=False)
    answers: Mapped[list[str]] = mapped_column(JSON, nullable=False)
    gold_paragraph_ids: Mapped[list[int]] = mapped_column(JSON, nullable=False)
    gold_titles: Mapped[list[str]] = mapped_column(JSON, nullable=False)
    main_passage_id: Mapped[int | None] = mapped_column(Integer, nullable=True)
    main_passage_title: Mapped[str | None] = mapped_column(Text, nullable=True)
    main_passage_text: Mapped[str | None] = mapped_column(Text, nullable=True)
    answer_type: Mapped[str] = mapped_column(String(), nullable=False, default="span")


class RunRow(Base):
    """A run: one method with one full configuration on one dataset.

    ``dataset_fingerprint`` is the dataset's fingerprint when the run was
    created, so results computed on a replaced corpus are never silently reused.
    """

    __tablename__ = "runs"

    id: Mapped[str] = mapped_column(String(16), primary_key=True)
    name: Mapped[str] = mapped_column(String(), nullable=False, index=True)
    method: Mapped[str] = mapped_column(String(), nullable=False)
    dataset: Mapped[str] = mapped_column(String(), nullable=False, index=True)
    dataset_fingerprint: Mapped[str] = mapped_column(String(64), nullable=False)
    config: Mapped[dict[str, Any]] = mapped_column(JSON, nullable=False)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utc_now)


class ResultRow(Base):
    """What a run produced for one question, with its trace and its cost."""

    __tablename__ = "results"
    __table_args__ = (UniqueConstraint("run_id", "query_id", name="uq_results_run_query"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    run_id: Mapped[str] = mapped_column(ForeignKey("runs.id", ondelete="CASCADE"), nullable=False)
    query_id: Mapped[str] = mapped_column(String(), nullable=False)
    prediction: Mapped[str] = mapped_column(Text, nullable=False)
    chunk_ids: Mapped[list[int]] = mapped_column(JSON, nullable=False)
    trace: Mapped[dict[str, Any]] = mapped_column(JSON, nullable=False)
    usage: Mapped[dict[str, Any] | None] = mapped_column(JSON, nullable=True)
    # The cost before ``usage`` existed: written as a copy of it, read only when it is NULL.
    llm_calls: Mapped[int] = mapped_column(Integer, nullable=False, default=0)
    prompt_tokens: Mapped[int] = mapped_column(Integer, nullable=False, default=0)
    completion_tokens: Mapped[int] = mapped_column(Integer, nullable=False, default=0)
    cached_prompt_tokens: Mapped[int] = mapped_column(Integer, nullable=False, default=0)
    llm_seconds: Mapped[float] = mapped_column(Float, nullable=False, default=0.0)
    retrieval_seconds: Mapped[float] = mapped_column(Float, nullable=False, default=0.0)
    total_seconds: Mapped[float] = mapped_column(Float, nullable=False, default=0.0)
    error: Mapped[str | None] = mapped_column(Text, nullable=True)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utc_now)


class VerdictRow(Base):
    """An LLM judge's verdict on one answer of a run (LLM-judged accuracy, the MIGRES paper's Acc†).

    The judge is ``judge_model`` with ``prompt_version``; ``prediction`` is the answer it
    judged, so a verdict on an answer the run has since replaced (a failed question
    retried) is not read as a verdict on the new one. ``correct`` is NULL when the judge's
    reply (``raw``) said neither yes nor no. The table is newer than the others:
    ``create_all`` adds it to a database an older hopkit made, which has no other change.
    """

    __tablename__ = "verdicts"
    __table_args__ = (UniqueConstraint("run_id", "query_id", "judge_model", "prompt_version",
                                       name="uq_verdicts_run_query_judge"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    run_id: Mapped[str] = mapped_column(ForeignKey("runs.id", ondelete="CASCADE"), nullable=False)
    query_id: Mapped[str] = mapped_column(String(), nullable=False)
    judge_model: Mapped[str] = mapped_column(String(), nullable=False)
    prompt_version: Mapped[str] = mapped_column(String(), nullable=False)
    prediction: Mapped[str] = mapped_column(Text, nullable=False)
    correct: Mapped[bool | None] = mapped_column(Boolean, nullable=True)
    raw: Mapped[str] = mapped_column(Text, nullable=False)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utc_now)


class ClaimRow(Base):
    """A question of a run taken by one driver (``holder``) until ``expires_at`` (seconds since the epoch,
    by the holder's clock), so that another driver of the same run does not answer it too. Its driver renews
    the lease while it answers and deletes the row once the result is stored; a driver that dies leaves a
    row that expires. The table is newer than the others: ``create_all`` adds it to older databases."""

    __tablename__ = "claims"

    run_id: Mapped[str] = mapped_column(ForeignKey("runs.id", ondelete="CASCADE"), primary_key=True)
    query_id: Mapped[str] = mapped_column(String(), primary_key=True)
    holder: Mapped[str] = mapped_column(String(), nullable=False)
    expires_at: Mapped[float] = mapped_column(Float, nullable=False)


class ThresholdRow(Base):
    """A threshold ``hopkit calibrate`` measured: its ``kind`` (``migres_relevance``: MIGRES's δ;
    ``searchain_confidence``: SearChain's θ) for a model (the LLM config's name, the judge's id), a
    retrieval config and a dataset, with the options measured with it (``rerank_top``) as JSON and
    the rule and command that found it. Runs read it (:mod:`hopkit.store.thresholds`). The table is
    newer than the others: ``create_all`` adds it to older databases."""

    __tablename__ = "thresholds"

    kind: Mapped[str] = mapped_column(String(), primary_key=True)
    llm: Mapped[str] = mapped_column(String(), primary_key=True)
    retrieval: Mapped[str] = mapped_column(String(), primary_key=True)
    dataset: Mapped[str] = mapped_column(String(), primary_key=True)
    value: Mapped[float] = mapped_column(Float, nullable=False)
    options: Mapped[str] = mapped_column(Text, nullable=False)
    judge: Mapped[str] = mapped_column(String(), nullable=False)
    rule: Mapped[str] = mapped_column(Text, nullable=False)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utc_now)


class NamedCorpusRow(Base):
    """A corpus stored once on its own, with no questions (``hopkit corpus add``), for any number of
    datasets to retrieve from: its ``name``, the ``source`` file it is read from (its path, ``format`` and
    size in bytes), how many passages are stored so far, and ``complete``, set only once the whole file is
    stored, with the ``fingerprint`` (:func:`~hopkit.records.corpus_fingerprint` of its passages by
    position). A corpus not complete is never used by a run; the same command resumes it. The table is
    newer than the others: ``create_all`` adds it to older databases."""

    __tablename__ = "corpora"

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    name: Mapped[str] = mapped_column(String(), unique=True, nullable=False)
    source: Mapped[str] = mapped_column(Text, nullable=False)
    format: Mapped[str] = mapped_column(String(), nullable=False)
    source_bytes: Mapped[int] = mapped_column(BigInteger, nullable=False)
    passages: Mapped[int] = mapped_column(BigInteger, nullable=False, default=0)
    complete: Mapped[bool] = mapped_column(Boolean, nullable=False, default=False)
    fingerprint: Mapped[str | None] = mapped_column(String(64), nullable=True)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utc_now)
    completed_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True), nullable=True)


class CorpusPassageRow(Base):
    """A passage of a named corpus: ``id`` is its position in the source file from 0 (the row a prebuilt
    index built over the file gives it), ``source_id`` the id the file gives it (wiki-18's ``id``, DPR's
    first column), kept so that a published retrieval result maps to it."""

    __tablename__ = "corpus_passages"
    __table_args__ = (Index("ix_corpus_passages_source_id", "corpus_id", "source_id"),)

    corpus_id: Mapped[int] = mapped_column(ForeignKey("corpora.id", ondelete="CASCADE"), primary_key=True)
    id: Mapped[int] = mapped_column(BigInteger, primary_key=True, autoincrement=False)
    source_id: Mapped[str] = mapped_column(String(), nullable=False)
    title: Mapped[str] = mapped_column(Text, nullable=False)
    text: Mapped[str] = mapped_column(Text, nullable=False)


class DatasetCorpusRow(Base):
    """The named corpus a dataset's questions retrieve from, in place of paragraphs of its own
    (``hopkit ingest ... --on-corpus NAME``): the dataset's paragraphs are then the corpus's passages,
    by position. A table of its own rather than a column of ``datasets``, so that a store made by an
    older hopkit gains it by ``create_all`` and keeps opening read-only as it was."""

    __tablename__ = "dataset_corpora"

    dataset_id: Mapped[int] = mapped_column(ForeignKey("datasets.id", ondelete="CASCADE"), primary_key=True)
    corpus_id: Mapped[int] = mapped_column(ForeignKey("corpora.id"), nullable=False, index=True)
