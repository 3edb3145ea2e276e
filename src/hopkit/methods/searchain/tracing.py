"""SearChain's Tracing (Section 3.3): the final content's reference marks, resolved and scored.

The tracing prompt lists the correct path's pairs as ``[Query n]`` / ``[Answer n]``, so a
mark ``[n]`` in the final content points to the n-th node of the path and to the
passage retrieved for it. Here:

* :func:`resolve_marks` maps each mark to its node and passage; a mark is valid when
  the node exists and a passage was retrieved for it (so each cited passage is the one
  retrieved for that node, never a passage from elsewhere);
* :func:`statements` splits the final content into sentences with the marks each carries;
* :func:`render_traced` writes the final content followed by the cited passages, as
  the paper's Figures 5 to 7 show it;
* :func:`knowledge_coverage` is Section 4.3.4's SKC (the number of knowledge items
  marked with a supporting passage); AMP needs human judges and is not computed;
* :func:`alce_citation_scores` is ALCE's citation recall and precision (Gao et al. 2023)
  with an entailment judge;
* :func:`task_answer` takes the short answer out of the final content for each task.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Callable, Sequence

from hopkit.judges.protocol import ENTAILED, EntailmentJudge
from hopkit.judges.sentences import SentenceSplitter
from hopkit.methods.searchain.tree import PathNode
from hopkit.parsing.answers import extract_answer
from hopkit.methods.searchain.prompts import TaskKind

MARK = re.compile(r"\[(\d{1,3})\]")
_WORD_MARK = "zzmark"  # a mark written as a word while sentences are split
_WORDED = re.compile(_WORD_MARK + r"(\d{1,3})")
_YES_NO = re.compile(r"\b(yes|no)\b", re.IGNORECASE)
_VERDICT = re.compile(r"\b(SUPPORTS|REFUTES)\b", re.IGNORECASE)


@dataclass(frozen=True)
class Mark:
    """One reference mark of the final content.

    Attributes:
        number: n in ``[n]``.
        paragraph_id: the passage retrieved for the path's n-th node (None: no such node or passage).
    """

    number: int
    paragraph_id: int | None

    @property
    def valid(self) -> bool:
        """The mark resolves to a passage retrieved for its node."""
        return self.paragraph_id is not None


@dataclass(frozen=True)
class Statement:
    """A sentence of the final content without its marks, and the marks it carries."""

    text: str
    marks: tuple[Mark, ...]


def _mark(number: int, path: Sequence[PathNode]) -> Mark:
    if not 1 <= number <= len(path):
        return Mark(number, None)
    record = path[number - 1].record
    passage = record.passage if record is not None else None
    return Mark(number, passage.id if passage is not None else None)


def resolve_marks(final_content: str, path: Sequence[PathNode]) -> list[Mark]:
    """Every mark of ``final_content``, in order, resolved against the correct path."""
    return [_mark(int(found.group(1)), path) for found in MARK.finditer(final_content)]


def strip_marks(text: str) -> str:
    """``text`` without its ``[n]`` marks (and the space before each)."""
    return " ".join(MARK.sub(" ", text).split()).replace(" .", ".").replace(" ,", ",")


def statements(final_content: str, path: Sequence[PathNode], splitter: SentenceSplitter) -> list[Statement]:
    """The sentences of the final content, each with its marks resolved against the correct path."""
    return resolved_statements(final_content, lambda number: _mark(number, path), splitter)


def resolved_statements(final_content: str, resolve: Callable[[int], Mark],
                        splitter: SentenceSplitter) -> list[Statement]:
    """The sentences of the final content, each with its marks as ``resolve`` maps their numbers
    (a stored trace's marks can be resolved again without the tree).

    The marks are split as words (``[1].`` keeps a splitter from seeing the sentence end).
    """
    worded = MARK.sub(lambda found: f"{_WORD_MARK}{found.group(1)}", final_content)
    found = []
    for sentence in splitter.split(worded):
        marked = _WORDED.sub(lambda found: f"[{found.group(1)}]", sentence)
        text = strip_marks(marked)
        if text:
            found.append(Statement(text, tuple(resolve(int(m.group(1))) for m in MARK.finditer(marked))))
    return found


def render_traced(final_content: str, path: Sequence[PathNode]) -> str:
    """The final content, then each mark's passage once, in the order of their numbers."""
    lines = [final_content.strip()]
    for number in sorted({mark.number for mark in resolve_marks(final_content, path) if mark.valid}):
        record = path[number - 1].record
        if record is not None and record.passage is not None:
            lines.append(f"[{number}] {record.passage.title}: {record.passage.text}")
    return "\n".join(lines)


def knowledge_coverage(marks: Sequence[Mark]) -> int:
    """SKC (Section 4.3.4): how many distinct knowledge items carry a valid mark."""
    return len({mark.number for mark in marks if mark.valid})


def alce_citation_scores(found: Sequence[Statement], passages: dict[int, str],
                         judge: EntailmentJudge) -> tuple[float, float]:
    """ALCE's citation recall and precision over the statements of one answer.

    Recall: the share of statements whose cited passages, joined, entail them (a
    statement without a valid mark counts as unsupported). Precision: the share of
    citations that are not irrelevant, where a citation of a supported statement is
    irrelevant when it does not entail the statement alone and the others still do
    without it; citations of unsupported statements are not precise.

    Args:
        found: the statements with their marks.
        passages: the text of each cited paragraph, by id.
        judge: the entailment judge.

    Returns:
        (recall, precision), each in [0, 1]; precision is 0.0 when nothing is cited.
    """
    supported = 0
    citations = 0
    precise = 0
    for statement in found:
        ids = list(dict.fromkeys(m.paragraph_id for m in statement.marks if m.paragraph_id is not None))
        citations += len(ids)
        if not ids or not _entails(judge, [passages[i] for i in ids], statement.text):
            continue
        supported += 1
        if len(ids) == 1:
            precise += 1
            continue
        for cited in ids:
            alone = _entails(judge, [passages[cited]], statement.text)
            others = _entails(judge, [passages[i] for i in ids if i != cited], statement.text)
            precise += 1 if alone or not others else 0
    recall = supported / len(found) if found else 0.0
    precision = precise / citations if citations else 0.0
    return recall, precision


def _entails(judge: EntailmentJudge, premises: Sequence[str], hypothesis: str) -> bool:
    return judge.entailment([("\n".join(premises), hypothesis)])[0] >= ENTAILED


def task_answer(task: TaskKind, final_content: str) -> str:
    """The short answer in the final content: what follows "answer is" (multi-hop QA), yes or no
    (StrategyQA), SUPPORTS or REFUTES (fact checking), or the whole text without marks (long-form)."""
    text = strip_marks(final_content)
    if task == "longform":
        return text
    answer = extract_answer(text)
    if task == "strategyqa":
        found = _YES_NO.search(answer) or _YES_NO.search(text)
        return found.group(1).capitalize() if found else answer
    if task == "fact":
        verdicts = _VERDICT.findall(answer) or _VERDICT.findall(text)
        return verdicts[-1].upper() if verdicts else answer
    return answer
