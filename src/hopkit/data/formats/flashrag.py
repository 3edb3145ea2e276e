"""FlashRAG's dataset format: the benchmarks' published splits as FlashRAG ships them.

One JSON object per line, plain or compressed (``.jsonl``, ``.jsonl.gz``, ``.jsonl.bz2``),
as in the Hub dataset ``RUC-NLPIR/FlashRAG_datasets`` (``<dataset>/<split>.jsonl``)::

    {"id": str, "question": str, "golden_answers": [str, ...], "metadata": anything}

Every golden answer counts: EM, F1 and cover-EM take the best over all of them, as
FlashRAG's evaluator does. ``metadata`` (a dataset's own extra fields) is read past.
The questions carry no paragraphs of their own, so no gold supporting paragraphs:
their corpus comes from elsewhere (``hopkit ingest flashrag FILE --corpus CORPUS``),
and paragraph recall does not apply to them.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from hopkit.data.formats._common import Where, answer_type_of, as_object, check_str, get_list, get_str, \
    load_jsonl_examples, unique_answers
from hopkit.records import Example


def load_flashrag(path: str | Path) -> list[Example]:
    """Load a FlashRAG dataset file, every question in file order.

    Args:
        path: the JSONL file (``.gz`` or ``.bz2`` too).

    Returns:
        One Example per non-blank line, in file order, each with no paragraphs.

    Raises:
        DataError: naming the file, line and field: a line that is not JSON or not an
            object, a missing, empty or wrongly typed ``id``, ``question`` or
            ``golden_answers``, no golden answer, or an id used on an earlier line.
    """
    return load_jsonl_examples(Path(path), parse_flashrag_record)


def parse_flashrag_record(row: Any, where: Where) -> Example:
    """Parse one line of a FlashRAG dataset file.

    Raises:
        DataError: as :func:`load_flashrag`.
    """
    obj = as_object(row, where)
    qid = get_str(obj, "id", where)
    where = where.with_id(qid)
    question = get_str(obj, "question", where)
    raw = get_list(obj, "golden_answers", where)
    answers = unique_answers([check_str(a, where, f"golden_answers[{i}]", allow_empty=True)
                              for i, a in enumerate(raw)])
    if not answers:
        raise where.error("must list at least one non-empty answer", "golden_answers")
    return Example(id=qid, question=question, answers=answers, context=(), answer_type=answer_type_of(answers[0]))
