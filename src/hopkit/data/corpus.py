"""Pool the paragraphs of a dataset's questions into one retrieval corpus.

This is how the IRCoT paper (Appendix A) turns the reading-comprehension
datasets into an open-domain setting: every paragraph (supporting or not) of
every question goes into one corpus, duplicates removed, and each question's
gold points into it.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import replace

from hopkit.records import ContextParagraph, Corpus, Example, Paragraph, Query

MAIN_PASSAGE_ID = -1
"""The id given to IIRC's main passage, which is kept out of the retrievable pool."""


def normalize_whitespace(text: str) -> str:
    """Collapse runs of whitespace to one space and strip the ends."""
    return " ".join(text.split())


def paragraph_key(title: str, text: str) -> tuple[str, str]:
    """The identity of a paragraph for deduplication: title and text, whitespace-normalised."""
    return normalize_whitespace(title), normalize_whitespace(text)


def pool_corpus(name: str, examples: Sequence[Example], *,
                extra_paragraphs: Iterable[ContextParagraph] = ()) -> Corpus:
    """Pool every paragraph of every question into one deduplicated corpus.

    Paragraphs are identified by (title, text) after whitespace normalisation and
    numbered 0..n-1 in order of first appearance (questions in order, each
    question's context in order, then ``extra_paragraphs``). The first
    appearance's title and text are kept (stripped). Each question's supporting
    paragraphs become its ``gold_paragraph_ids`` (first-appearance order, no
    repeats) and their titles its ``gold_titles``. IIRC's main passage becomes
    ``Query.main_passage`` with id ``-1`` and is not part of the pool.

    Args:
        name: the corpus name (usually the dataset name).
        examples: the loaded questions.
        extra_paragraphs: more paragraphs to make retrievable that no question
            carries (e.g. a whole StrategyQA paragraphs file).

    Returns:
        The corpus with its paragraphs and one Query per example.
    """
    ids: dict[tuple[str, str], int] = {}
    seen_raw: dict[tuple[str, str], int] = {}  # shortcut: the same strings again skip normalising
    paragraphs: list[Paragraph] = []

    def add(para: ContextParagraph) -> int:
        raw = (para.title, para.text)
        found = seen_raw.get(raw)
        if found is not None:
            return found
        key = paragraph_key(para.title, para.text)
        found = ids.get(key)
        if found is None:
            found = ids[key] = len(paragraphs)
            paragraphs.append(Paragraph(id=found, title=para.title.strip(), text=para.text.strip()))
        seen_raw[raw] = found
        return found

    queries = []
    for example in examples:
        gold_ids: dict[int, None] = {}
        gold_titles: dict[str, None] = {}
        for para in example.context:
            pid = add(para)
            if para.is_supporting:
                gold_ids[pid] = None
                gold_titles[paragraphs[pid].title] = None
        main = example.main_passage
        queries.append(Query(
            id=example.id,
            text=example.question,
            answers=example.answers,
            gold_paragraph_ids=tuple(gold_ids),
            gold_titles=tuple(gold_titles),
            main_passage=None if main is None else Paragraph(MAIN_PASSAGE_ID, main.title.strip(), main.text.strip()),
            answer_type=example.answer_type,
        ))
    for para in extra_paragraphs:
        add(para)
    return Corpus(name=name, paragraphs=tuple(paragraphs), queries=tuple(queries))


def questions_only(name: str, examples: Sequence[Example]) -> Corpus:
    """The questions of ``examples`` with no paragraphs of their own: for questions that retrieve from a
    corpus stored once on its own (``hopkit ingest ... --on-corpus NAME``), the open-domain setting of
    FlashRAG's and Search-R1's tables. Their own paragraphs are not pooled, so no gold paragraph id can
    point into the corpus: the ids are dropped (paragraph recall shows ``-``) and the gold titles kept."""
    pooled = pool_corpus(name, examples)
    return Corpus(name=name, paragraphs=(),
                  queries=tuple(replace(query, gold_paragraph_ids=()) for query in pooled.queries))
