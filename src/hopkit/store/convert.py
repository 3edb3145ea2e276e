"""Conversions between the database rows and hopkit's records (no I/O)."""

from __future__ import annotations

import json
import operator
from dataclasses import replace
from datetime import datetime, timezone
from typing import Any

from hopkit.errors import StoreError, UsageError
from hopkit.records import Corpus, Paragraph, Query
from hopkit.store.models import QueryRow, ResultRow, RunRow
from hopkit.store.records import QueryResult, RunInfo
from hopkit.store.storable import name_too_long, optional_text, storable_json, storable_text
from hopkit.usage import MODEL, RETRIEVAL, Usage

MAX_PARAGRAPH_ID = 2**31 - 1  # the paragraphs.id column is a 32-bit INTEGER on PostgreSQL


def storable_corpus(corpus: Corpus) -> Corpus:
    """``corpus`` with every text made storable (:mod:`hopkit.store.storable`), equal to it (and sharing its
    paragraphs) when nothing needed that, so the fingerprint is taken of what the store will hold."""
    return Corpus(name=storable_text(corpus.name),
                  paragraphs=tuple(_storable_paragraph(p) for p in corpus.paragraphs),
                  queries=tuple(_storable_query(q) for q in corpus.queries))


def _storable_paragraph(paragraph: Paragraph) -> Paragraph:
    title, text = storable_text(paragraph.title), storable_text(paragraph.text)
    if title is paragraph.title and text is paragraph.text:  # the usual case: no copy of a large corpus
        return paragraph
    return replace(paragraph, title=title, text=text)


def _storable_query(query: Query) -> Query:
    main = query.main_passage
    stored = replace(query, id=storable_text(query.id), text=storable_text(query.text),
                     answers=tuple(storable_text(a) for a in query.answers),
                     gold_titles=tuple(storable_text(t) for t in query.gold_titles),
                     main_passage=None if main is None else _storable_paragraph(main))
    return query if stored == query else stored


def check_corpus(corpus: Corpus) -> None:
    """Check a corpus before writing it: unique ids, gold pointing into the corpus.

    Raises:
        StoreError: an empty corpus, or naming the first offending paragraph or question.
    """
    if not isinstance(corpus.name, str) or not corpus.name.strip():
        raise StoreError(f"a corpus needs a non-empty name, got {corpus.name!r}")
    if name_too_long(corpus.name):
        raise StoreError(f"the dataset name {name_too_long(corpus.name)}; choose a shorter one (--name)")
    if not corpus.queries and not corpus.paragraphs:
        raise StoreError(f"corpus {corpus.name!r} is empty (no questions, no paragraphs); nothing stored, so the "
                         "name stays free. Was the dataset file empty?")
    seen_paragraphs: set[int] = set()
    for paragraph in corpus.paragraphs:
        if not isinstance(paragraph.id, int) or not 0 <= paragraph.id <= MAX_PARAGRAPH_ID:
            raise StoreError(f"corpus {corpus.name!r}: paragraph id {paragraph.id!r} is not an "
                             f"integer between 0 and {MAX_PARAGRAPH_ID}")
        if paragraph.id in seen_paragraphs:
            raise StoreError(f"corpus {corpus.name!r}: paragraph id {paragraph.id} appears twice; "
                             "paragraph ids must be unique within a corpus")
        seen_paragraphs.add(paragraph.id)
    seen_queries: set[str] = set()
    for query in corpus.queries:
        if not isinstance(query.id, str) or not query.id or name_too_long(query.id):
            what = name_too_long(query.id) if isinstance(query.id, str) and query.id else "is empty or not text"
            raise StoreError(f"corpus {corpus.name!r}: a question id {what}")
        if query.id in seen_queries:
            raise StoreError(f"corpus {corpus.name!r}: question id {query.id!r} appears twice; "
                             "question ids must be unique within a dataset")
        seen_queries.add(query.id)
        _check_query_types(corpus.name, query)
        missing = [pid for pid in query.gold_paragraph_ids if pid not in seen_paragraphs]
        if missing:
            raise StoreError(f"corpus {corpus.name!r}, question {query.id!r}: gold paragraph ids "
                             f"{missing[:5]} are not in the corpus; pool the gold paragraphs "
                             "into the corpus before storing it")


def _check_query_types(corpus_name: str, query: Query) -> None:
    where = f"corpus {corpus_name!r}, question {query.id!r}"
    for label in ("answers", "gold_titles"):
        values = getattr(query, label)
        if not all(isinstance(value, str) for value in values):
            raise StoreError(f"{where}: {label} must all be strings, got {values!r}")
    if not all(isinstance(pid, int) for pid in query.gold_paragraph_ids):
        raise StoreError(f"{where}: gold_paragraph_ids must all be integers, "
                         f"got {query.gold_paragraph_ids!r}")


def paragraph_row(dataset_id: int, paragraph: Paragraph) -> dict[str, Any]:
    """The insert parameters of one paragraph."""
    return {"dataset_id": dataset_id, "id": paragraph.id, "title": paragraph.title,
            "text": paragraph.text}


def query_row(dataset_id: int, position: int, query: Query) -> dict[str, Any]:
    """The insert parameters of one question."""
    main = query.main_passage
    return {
        "dataset_id": dataset_id,
        "position": position,
        "id": query.id,
        "text": query.text,
        "answers": list(query.answers),
        "gold_paragraph_ids": list(query.gold_paragraph_ids),
        "gold_titles": list(query.gold_titles),
        "main_passage_id": main.id if main is not None else None,
        "main_passage_title": main.title if main is not None else None,
        "main_passage_text": main.text if main is not None else None,
        "answer_type": query.answer_type,
    }


def to_query(row: QueryRow) -> Query:
    """The record of a question row."""
    main = None
    if row.main_passage_text is not None:
        main = Paragraph(id=row.main_passage_id if row.main_passage_id is not None else -1,
                         title=row.main_passage_title or "", text=row.main_passage_text)
    return Query(
        id=row.id,
        text=row.text,
        answers=tuple(row.answers),
        gold_paragraph_ids=tuple(int(pid) for pid in row.gold_paragraph_ids),
        gold_titles=tuple(row.gold_titles),
        main_passage=main,
        answer_type=row.answer_type,
    )


def result_values(run_id: str, result: QueryResult) -> dict[str, Any]:
    """The insert parameters of one result (``trace`` and ``usage`` made plain JSON).

    The usage is also copied into the legacy cost columns (see :mod:`hopkit.store.models`).
    """
    try:
        trace = storable_json(json.loads(json.dumps(dict(result.trace), allow_nan=False)))
    except (TypeError, ValueError) as exc:
        raise StoreError(
            f"run {run_id}, question {result.query_id!r}: the trace is not JSON-serialisable "
            f"({exc}); put only strings, numbers, booleans, None, lists and dicts in it"
        ) from exc
    try:
        chunk_ids = [operator.index(cid) for cid in result.chunk_ids]
    except TypeError:
        raise StoreError(f"run {run_id}, question {result.query_id!r}: the paragraph ids must be integers, "
                         f"got {list(result.chunk_ids)[:5]!r}") from None
    usage = result.usage
    try:
        usage_json = usage.to_dict()
    except UsageError as exc:
        raise StoreError(f"run {run_id}, question {result.query_id!r}: {exc}") from exc
    return {
        "run_id": run_id,
        "query_id": storable_text(result.query_id),
        "prediction": storable_text(result.prediction),
        "chunk_ids": chunk_ids,
        "trace": trace,
        "usage": usage_json,
        "llm_calls": usage.llm_calls,
        "prompt_tokens": usage.prompt_tokens,
        "completion_tokens": usage.completion_tokens,
        "cached_prompt_tokens": usage.cached_prompt_tokens,
        "llm_seconds": usage.llm_seconds,
        "retrieval_seconds": usage.retrieval_seconds,
        "total_seconds": usage.total_seconds,
        "error": optional_text(result.error),
        "created_at": datetime.now(timezone.utc),
    }


def to_usage(row: ResultRow) -> Usage:
    """The usage of a result row: its ``usage`` JSON, or for a row written before that
    column existed, the legacy cost columns (their retrieval calls were not counted).

    Raises:
        StoreError: the stored usage is malformed (names the run, question and field).
    """
    legacy: dict[str, Any] = {
        "prompt_tokens": row.prompt_tokens, "completion_tokens": row.completion_tokens,
        "cached_prompt_tokens": row.cached_prompt_tokens, "total_seconds": row.total_seconds, "components": {}}
    if row.llm_calls or row.llm_seconds:
        legacy["components"][MODEL] = {"calls": row.llm_calls, "seconds": row.llm_seconds}
    if row.retrieval_seconds:
        legacy["components"][RETRIEVAL] = {"calls": 0, "seconds": row.retrieval_seconds}
    try:
        return Usage.from_dict(row.usage if row.usage is not None else legacy)
    except UsageError as exc:
        raise StoreError(f"run {row.run_id}, question {row.query_id!r}: the stored usage is "
                         f"malformed: {exc}") from exc


def to_result(row: ResultRow) -> QueryResult:
    """The record of a result row.

    Raises:
        StoreError: the stored usage is malformed.
    """
    return QueryResult(
        query_id=row.query_id,
        prediction=row.prediction,
        chunk_ids=tuple(int(cid) for cid in row.chunk_ids),
        trace=row.trace,
        usage=to_usage(row),
        error=row.error,
    )


def as_utc(moment: datetime) -> datetime:
    """``moment`` as an aware UTC datetime (SQLite gives back naive ones)."""
    if moment.tzinfo is None:
        return moment.replace(tzinfo=timezone.utc)
    return moment.astimezone(timezone.utc)


def to_run_info(row: RunRow, finished: int, failed: int, current_fingerprint: str | None) -> RunInfo:
    """The record of a run row with its result counts and its dataset's current fingerprint
    (``None`` when no dataset of that name is stored)."""
    return RunInfo(run_id=row.id, name=row.name, method=row.method, dataset=row.dataset,
                   config=row.config, created_at=as_utc(row.created_at),
                   finished=finished, failed=failed, dataset_fingerprint=row.dataset_fingerprint,
                   current_fingerprint=current_fingerprint)
