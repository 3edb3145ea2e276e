"""HotpotQA in its official JSON format (distractor and fullwiki dev files).

The file is a JSON list of questions::

    {"_id": str, "question": str, "answer": str, "type": str, "level": str,
     "supporting_facts": [[title, sentence_index], ...],
     "context": [[title, [sentence, ...]], ...]}

A paragraph is supporting when its title appears in ``supporting_facts``.
2WikiMultihopQA uses the same layout (see :mod:`.two_wiki`), so the parsing of
one record lives here and is shared.
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
    get_list,
    get_str,
    join_sentences,
    read_json_list,
    require_gold_titles_present,
    type_name,
)
from hopkit.records import ContextParagraph, Example


def load_hotpotqa(path: str | Path) -> list[Example]:
    """Load an official HotpotQA JSON file (distractor or fullwiki setting).

    Args:
        path: e.g. ``hotpot_dev_distractor_v1.json``.

    Returns:
        One Example per question, in file order; its context holds the question's
        paragraphs (10 in the distractor setting), the gold ones flagged.

    Raises:
        DataError: malformed JSON or a record with a missing or wrongly typed field.
    """
    path = Path(path)
    rows = read_json_list(path)
    return [parse_hotpot_record(row, Where(str(path), record=f"#{index}")) for index, row in enumerate(rows)]


def parse_hotpot_record(row: Any, where: Where, aliases: tuple[str, ...] = ()) -> Example:
    """Parse one HotpotQA-layout record (also used for 2WikiMultihopQA).

    Args:
        row: the decoded JSON object.
        where: its place in the file, for errors.
        aliases: extra accepted answers, put after the main answer.

    Raises:
        DataError: a missing or wrongly typed field, or a supporting title that
            names no context paragraph.
    """
    obj = as_object(row, where)
    qid = get_str(obj, "_id", where)
    where = where.with_id(qid)
    question = get_str(obj, "question", where)
    answer = get_str(obj, "answer", where)
    gold_titles = _supporting_titles(obj, where)
    context = tuple(
        _paragraph(item, where, f"context[{i}]", gold_titles)
        for i, item in enumerate(get_list(obj, "context", where))
    )
    require_gold_titles_present(context, sorted(gold_titles), where, "supporting_facts")
    answers = (answer, *(a for a in aliases if a != answer))
    return Example(id=qid, question=question, answers=answers, context=context,
                   answer_type=answer_type_of(answer))


def _supporting_titles(obj: Mapping[str, Any], where: Where) -> set[str]:
    titles: set[str] = set()
    for i, fact in enumerate(get_list(obj, "supporting_facts", where)):
        field = f"supporting_facts[{i}]"
        if not isinstance(fact, list) or len(fact) != 2:
            raise where.error(f"expected [title, sentence_index], got {type_name(fact)}", field)
        titles.add(check_str(fact[0], where, field))
    return titles


def _paragraph(item: Any, where: Where, field: str, gold_titles: set[str]) -> ContextParagraph:
    if not isinstance(item, list) or len(item) != 2:
        raise where.error(f"expected [title, [sentences]], got {type_name(item)}", field)
    title = check_str(item[0], where, field + "[0]")
    sentences = item[1]
    if not isinstance(sentences, list) or not all(isinstance(s, str) for s in sentences):
        raise where.error("expected a list of sentence strings", field + "[1]")
    text = join_sentences(sentences)
    return ContextParagraph(title=title, text=text, is_supporting=title in gold_titles)
