"""hopkit's own simple JSONL format, for users' data (see ``docs/data-formats.md``).

One JSON object per line::

    {"id": str, "question": str, "answers": [str, ...],
     "paragraphs": [{"title": str, "text": str, "is_supporting": bool}, ...],
     "main_passage": {"title": str, "text": str},      # optional
     "answer_type": "span" | "yes_no"}                  # optional

``answers`` lists the main answer first, then accepted aliases. ``is_supporting``
defaults to false. ``answer_type`` defaults to ``"yes_no"`` when the main answer
is yes or no, else ``"span"``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from hopkit.data.formats._common import (
    Where,
    answer_type_of,
    as_object,
    check_str,
    get_bool,
    get_list,
    get_str,
    load_jsonl_examples,
    unique_answers,
)
from hopkit.records import ContextParagraph, Example

ANSWER_TYPES = ("span", "yes_no")


def load_jsonl(path: str | Path) -> list[Example]:
    """Load a file in hopkit's generic JSONL format.

    Args:
        path: the JSONL file.

    Returns:
        One Example per non-blank line, in file order.

    Raises:
        DataError: a malformed line, a missing or wrongly typed field, an empty
            question or answer list, an unknown answer_type, or a repeated id.
    """
    return load_jsonl_examples(Path(path), parse_jsonl_record)


def parse_jsonl_record(row: Any, where: Where) -> Example:
    """Parse one record of the generic format.

    Raises:
        DataError: as :func:`load_jsonl`.
    """
    obj = as_object(row, where)
    qid = get_str(obj, "id", where)
    where = where.with_id(qid)
    question = get_str(obj, "question", where)
    raw_answers = get_list(obj, "answers", where)
    answers = unique_answers([check_str(a, where, f"answers[{i}]") for i, a in enumerate(raw_answers)])
    if not answers:
        raise where.error("must list at least one answer", "answers")
    paragraphs = tuple(
        _paragraph(item, where.nested(f"paragraphs[{i}]"), supporting_default=False)
        for i, item in enumerate(get_list(obj, "paragraphs", where, default=[]))
    )
    main = obj.get("main_passage")
    main_passage = None if main is None else _paragraph(main, where.nested("main_passage"), supporting_default=True)
    answer_type = get_str(obj, "answer_type", where, default=answer_type_of(answers[0]))
    if answer_type not in ANSWER_TYPES:
        raise where.error(f"unknown answer type {answer_type!r}; use one of {', '.join(ANSWER_TYPES)}",
                          "answer_type")
    return Example(id=qid, question=question, answers=answers, context=paragraphs,
                   main_passage=main_passage, answer_type=answer_type)


def _paragraph(item: Any, where: Where, *, supporting_default: bool) -> ContextParagraph:
    obj = as_object(item, where)
    return ContextParagraph(
        title=get_str(obj, "title", where, allow_empty=True),
        text=get_str(obj, "text", where),
        is_supporting=get_bool(obj, "is_supporting", where, default=supporting_default),
    )
