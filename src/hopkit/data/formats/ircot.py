"""The IRCoT authors' ``processed_data`` JSONL format (any dataset).

One JSON object per line::

    {"question_id": str, "question_text": str,
     "answers_objects": [{"number": str, "date": {"day", "month", "year"}, "spans": [str]}],
     "contexts": [{"id": str, "title": str, "paragraph_text": str, "is_supporting": bool}],
     "pinned_contexts": [{"title": str, "paragraph_text": str}]}   # IIRC only

Each answers object is one accepted answer, written DROP-style: a number, a
date, or spans (several spans form one multi-span answer, joined with ", ").
IIRC's ``pinned_contexts`` holds the main passage.
"""

from __future__ import annotations

from collections.abc import Mapping
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
    iter_jsonl,
    unique_answers,
)
from hopkit.records import ContextParagraph, Example


def load_ircot(path: str | Path) -> list[Example]:
    """Load a JSONL file in the IRCoT authors' processed format.

    Args:
        path: e.g. ``processed_data/hotpotqa/dev_subsampled.jsonl``.

    Returns:
        One Example per line, in file order.

    Raises:
        DataError: a malformed line, a missing or wrongly typed field, or a
            question with no answer.
    """
    path = Path(path)
    examples = []
    for where, row in iter_jsonl(path):
        obj = as_object(row, where)
        qid = get_str(obj, "question_id", where)
        where = where.with_id(qid)
        question = get_str(obj, "question_text", where)
        answers = unique_answers([
            answer_object_to_string(item, where.nested(f"answers_objects[{i}]"))
            for i, item in enumerate(get_list(obj, "answers_objects", where))
        ])
        if not answers:
            raise where.error("no non-empty answer", "answers_objects")
        context = tuple(
            _paragraph(item, where.nested(f"contexts[{i}]"))
            for i, item in enumerate(get_list(obj, "contexts", where))
        )
        pinned = get_list(obj, "pinned_contexts", where, default=[])
        main = _paragraph(pinned[0], where.nested("pinned_contexts[0]")) if pinned else None
        examples.append(Example(id=qid, question=question, answers=answers, context=context,
                                main_passage=main, answer_type=answer_type_of(answers[0])))
    return examples


def answer_object_to_string(item: Any, where: Where) -> str:
    """Turn one DROP-style answers object into an answer string.

    A number wins, then a date (``"day month year"``, empty parts left out),
    then the spans joined with ``", "``. Returns ``""`` if all are empty.

    Raises:
        DataError: the object or one of its parts has the wrong type.
    """
    obj = as_object(item, where)
    number = obj.get("number", "")
    if number not in ("", None):
        return check_str(number, where, "number")
    date = obj.get("date") or {}
    date_obj = as_object(date, where, "date")
    parts = [check_str(date_obj.get(key) or "", where, f"date.{key}", allow_empty=True)
             for key in ("day", "month", "year")]
    if any(parts):
        return " ".join(p for p in parts if p)
    spans = [check_str(s, where, f"spans[{i}]", allow_empty=True)
             for i, s in enumerate(get_list(obj, "spans", where, default=[]))]
    return ", ".join(s for s in spans if s)


def _paragraph(item: Any, where: Where) -> ContextParagraph:
    obj: Mapping[str, Any] = as_object(item, where)
    return ContextParagraph(
        title=get_str(obj, "title", where, allow_empty=True),
        text=get_str(obj, "paragraph_text", where),
        is_supporting=get_bool(obj, "is_supporting", where, default=False),
    )
