"""StrategyQA in its official format: a questions JSON file plus a paragraphs file.

Questions (``strategyqa_train.json``): a JSON list of::

    {"qid": str, "term": str, "description": str, "question": str, "answer": bool,
     "facts": [str], "decomposition": [str],
     "evidence": [[[["Title-N", ...], "no_evidence"], ["operation"], ...], ...]}

``evidence`` holds, per annotator and per decomposition step, lists of cited
paragraph keys ``"Title-N"`` mixed with the markers ``"no_evidence"`` and
``"operation"``. The paragraphs come from a second file, either the official
``strategyqa_train_paragraphs.json`` (an object keyed ``"Title-N"``) or a JSONL
file of ``{title, section, headers, para_index, contents}`` whose key is
``f"{title}-{para_index}"``. The cited paragraphs are the question's gold
context; answers are ``"yes"``/``"no"``.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

from hopkit.data.formats._common import (
    Where,
    as_object,
    get_bool,
    get_field,
    get_str,
    iter_jsonl,
    read_json,
    read_json_list,
    type_name,
)
from hopkit.errors import DataError
from hopkit.records import ContextParagraph, Example

EVIDENCE_MARKERS = frozenset({"no_evidence", "operation"})
PARAGRAPH_FILE_PATTERNS = ("strategyqa_paragraphs*.jsonl", "strategyqa_train_paragraphs.json")


def load_strategyqa(path: str | Path, *, paragraphs_path: str | Path | None = None) -> list[Example]:
    """Load official StrategyQA questions with their cited evidence paragraphs.

    Args:
        path: the questions file (a JSON list).
        paragraphs_path: the paragraphs file; by default the first file next to
            ``path`` matching ``strategyqa_paragraphs*.jsonl`` or named
            ``strategyqa_train_paragraphs.json``.

    Returns:
        One Example per question, in file order, answer ``"yes"`` or ``"no"``,
        context = the paragraphs its evidence cites (all supporting).

    Raises:
        DataError: no paragraphs file, malformed JSON, a missing or wrongly typed
            field, or evidence citing a paragraph the paragraphs file lacks.
    """
    path = Path(path)
    paragraphs = load_strategyqa_paragraphs(
        Path(paragraphs_path) if paragraphs_path is not None else find_paragraphs_file(path)
    )
    rows = read_json_list(path)
    examples = []
    for index, row in enumerate(rows):
        where = Where(str(path), record=f"#{index}")
        examples.append(question_example(as_object(row, where), where, paragraphs))
    return examples


def question_example(obj: Mapping[str, Any], where: Where, paragraphs: Mapping[str, ContextParagraph]) -> Example:
    """One question object of the file as an Example, its cited paragraphs as its context.

    Raises:
        DataError: a missing or wrongly typed field, or evidence citing a paragraph not in ``paragraphs``.
    """
    qid = get_str(obj, "qid", where)
    where = where.with_id(qid)
    question = get_str(obj, "question", where)
    answer = "yes" if get_bool(obj, "answer", where) else "no"
    context = []
    for key in cited_keys(get_field(obj, "evidence", where), where):
        if key not in paragraphs:
            raise where.error(f"evidence cites paragraph {key!r}, which the paragraphs file lacks; "
                              "pass the full paragraphs file as paragraphs_path", "evidence")
        context.append(paragraphs[key])
    return Example(id=qid, question=question, answers=(answer,), context=tuple(context), answer_type="yes_no")


def find_paragraphs_file(questions_path: Path) -> Path:
    """Find the paragraphs file next to a StrategyQA questions file.

    Raises:
        DataError: none found.
    """
    for pattern in PARAGRAPH_FILE_PATTERNS:
        found = sorted(questions_path.parent.glob(pattern))
        if found:
            return found[0]
    raise DataError(f"no StrategyQA paragraphs file next to the questions (looked for "
                    f"{' or '.join(PARAGRAPH_FILE_PATTERNS)}); pass paragraphs_path",
                    path=str(questions_path))


def cited_keys(evidence: Any, where: Where) -> list[str]:
    """Every paragraph key cited anywhere in ``evidence``, first citation first, each once.

    Raises:
        DataError: ``evidence`` holds something other than nested lists of strings.
    """
    if not isinstance(evidence, list):
        raise where.error(f"expected nested lists, got {type_name(evidence)}", "evidence")
    keys: dict[str, None] = {}
    for item in _walk(evidence, where):
        if item not in EVIDENCE_MARKERS:
            keys[item] = None
    return list(keys)


def _walk(value: Any, where: Where) -> Iterator[str]:
    if isinstance(value, str):
        yield value
    elif isinstance(value, list):
        for item in value:
            yield from _walk(item, where)
    else:
        raise where.error(f"expected nested lists of strings, found {type_name(value)}", "evidence")


def load_strategyqa_paragraphs(path: Path) -> dict[str, ContextParagraph]:
    """Read a StrategyQA paragraphs file into ``{"Title-N": paragraph}``.

    Accepts the official JSON object keyed by ``"Title-N"`` (values with a
    ``content`` field) and the JSONL layout (``contents``, key built from
    ``title`` and ``para_index``). Every paragraph is flagged supporting, since
    it is read only when a question cites it.

    Raises:
        DataError: unreadable or malformed file, or a record without title/text.
    """
    if path.suffix == ".jsonl":
        records: Iterator[tuple[Where, Any, str | None]] = (
            (where, row, None) for where, row in iter_jsonl(path)
        )
    else:
        data = read_json(path)
        if isinstance(data, dict):
            records = ((Where(str(path), record=repr(key)), row, key) for key, row in data.items())
        elif isinstance(data, list):
            records = ((Where(str(path), record=f"#{i}"), row, None) for i, row in enumerate(data))
        else:
            raise DataError(f"expected a JSON object or list, got {type_name(data)}", path=str(path))
    table: dict[str, ContextParagraph] = {}
    for where, row, key in records:
        obj = as_object(row, where)
        title = get_str(obj, "title", where)
        text = _contents(obj, where)
        if key is None:
            key = f"{title}-{_para_index(obj, where)}"
        table[key] = ContextParagraph(title=title, text=text, is_supporting=True)
    return table


def _contents(obj: Mapping[str, Any], where: Where) -> str:
    field = "contents" if "contents" in obj else "content"
    return get_str(obj, field, where)


def _para_index(obj: Mapping[str, Any], where: Where) -> int:
    value = get_field(obj, "para_index", where)
    if isinstance(value, bool) or not isinstance(value, int):
        raise where.error(f"expected an integer, got {type_name(value)}", "para_index")
    return value
