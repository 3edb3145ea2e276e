"""MuSiQue in its official JSONL format (``musique_ans_v1.0_dev.jsonl``).

One JSON object per line::

    {"id": str, "question": str, "answer": str, "answer_aliases": [str],
     "answerable": bool,
     "paragraphs": [{"idx": int, "title": str, "paragraph_text": str, "is_supporting": bool}],
     "question_decomposition": [...]}

Rows marked ``"answerable": false`` (MuSiQue-Full) are skipped: they have no
gold answer to score against.
"""

from __future__ import annotations

import logging
from pathlib import Path

from hopkit.data.formats._common import (
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

logger = logging.getLogger(__name__)


def load_musique(path: str | Path) -> list[Example]:
    """Load an official MuSiQue JSONL file.

    Args:
        path: e.g. ``musique_ans_v1.0_dev.jsonl``.

    Returns:
        One Example per answerable question, in file order; answers are the
        answer then its aliases; context holds the 20 paragraphs, gold flagged.

    Raises:
        DataError: a malformed line or a record with a missing or wrongly typed field.
    """
    path = Path(path)
    examples: list[Example] = []
    skipped = 0
    for where, row in iter_jsonl(path):
        obj = as_object(row, where)
        qid = get_str(obj, "id", where)
        where = where.with_id(qid)
        if not get_bool(obj, "answerable", where, default=True):
            skipped += 1
            continue
        question = get_str(obj, "question", where)
        answer = get_str(obj, "answer", where)
        aliases = [check_str(a, where, f"answer_aliases[{i}]", allow_empty=True)
                   for i, a in enumerate(get_list(obj, "answer_aliases", where, default=[]))]
        context = []
        for i, item in enumerate(get_list(obj, "paragraphs", where)):
            para_where = where.nested(f"paragraphs[{i}]")
            para = as_object(item, para_where)
            context.append(ContextParagraph(
                title=get_str(para, "title", para_where),
                text=get_str(para, "paragraph_text", para_where),
                is_supporting=get_bool(para, "is_supporting", para_where),
            ))
        examples.append(Example(id=qid, question=question, answers=unique_answers([answer, *aliases]),
                                context=tuple(context), answer_type=answer_type_of(answer)))
    if skipped:
        logger.info("%s: skipped %d unanswerable questions", path, skipped)
    return examples
