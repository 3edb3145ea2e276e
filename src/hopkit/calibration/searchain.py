"""SearChain's confidence threshold θ for a reader, by the paper's procedure (Appendix A.4.1).

"We initialize the initial value of the confidence threshold (1.0) ... and gradually
increase the value with a step size of 0.1. We validate the F1-score (... of judging
whether the passage can answer the question) on the mixed open-domain QA datasets."

Each pair is a single-hop question with its gold answers and its top-1 passage (SearChain's
nodes are single-hop sub-questions, each answered from the top-1 passage). A pair is
positive when the passage contains a gold answer (cover-EM). The reader reads the passage
as SearChain shows it; "confidence > θ" predicts the label. The sweep covers the reader's
own scale (the LLM reader's log-odds may lie below 1.0) in steps of 0.1 and keeps the best
F1, the lowest θ among ties; the best from 1.0 upward and the paper's 1.5 are reported too.

The pairs come from a stored dataset's questions (single-hop questions, as the paper's) or
from the sub-questions of MuSiQue's decompositions (:func:`decomposition_pairs`).
"""

from __future__ import annotations

import json
import math
import re
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Sequence

from tqdm import tqdm

from hopkit.calibration.scores import ScoreFile
from hopkit.errors import ConfigError
from hopkit.evaluation.metrics import cover_em
from hopkit.judges.protocol import AnswerJudge
from hopkit.methods.searchain import PAPER_THETA
from hopkit.methods.searchain.method import passage_text
from hopkit.records import Query
from hopkit.retrieval.protocol import Retriever

_STEP_REFERENCE = re.compile(r"#(\d+)")


@dataclass(frozen=True)
class Pair:
    """A single-hop question and its gold answers; ``key`` names it in the score file."""

    key: str
    question: str
    golds: tuple[str, ...]


@dataclass(frozen=True)
class ThetaPoint:
    """Precision, recall and F1 of "confidence > θ" at one θ."""

    theta: float
    precision: float
    recall: float
    f1: float


@dataclass(frozen=True)
class ThetaCalibration:
    """θ for one reader on some pairs, and how the paper's θ and a config's compare.

    Attributes:
        chosen: the best F1 over the reader's whole scale (the θ to use).
        from_one: the best F1 from 1.0 upward (the paper's grid); None if no θ there.
        at_paper: the point at the paper's 1.5.
        pairs: how many pairs were read.
        positives: how many of them have a passage containing a gold answer.
        seconds_per_pair: what retrieving and reading one pair took.
    """

    chosen: ThetaPoint
    from_one: ThetaPoint | None
    at_paper: ThetaPoint
    pairs: int
    positives: int
    seconds_per_pair: float


def question_pairs(queries: Sequence[Query]) -> list[Pair]:
    """Stored questions as pairs (for single-hop questions); a question without answers is left out."""
    return [Pair(query.id, query.text, tuple(query.answers)) for query in queries if query.answers]


def as_question(step: str) -> str:
    """A step written as a Wikidata triple ("Hagar >> spouse") as a question ("What is the spouse of Hagar?")."""
    subject, arrow, relation = step.partition(" >> ")
    return f"What is the {relation.strip()} of {subject.strip()}?" if arrow else step


def sub_question_pairs(row: dict[str, Any]) -> list[Pair]:
    """The decomposition of one MuSiQue row, each ``#k`` replaced by step k's answer, triples as questions.

    The last step's golds include the question's answer aliases.
    """
    steps = row.get("question_decomposition") or []
    answers = [str(step["answer"]) for step in steps]

    def resolved(match: re.Match[str]) -> str:
        index = int(match.group(1))
        return answers[index - 1] if 0 < index <= len(answers) else match.group(0)

    pairs = []
    for index, step in enumerate(steps):
        golds = (answers[index],)
        if index == len(steps) - 1:
            golds += tuple(str(alias) for alias in row.get("answer_aliases", []) if alias not in golds)
        pairs.append(Pair(f"{row['id']}#{index + 1}", as_question(_STEP_REFERENCE.sub(resolved, step["question"])),
                          golds))
    return pairs


def decomposition_pairs(path: Path, *, start: int, limit: int) -> list[Pair]:
    """The sub-questions of rows ``start`` .. ``start + limit`` of a MuSiQue JSONL file (official format).

    Raises:
        ConfigError: the file is missing, or a line is not a MuSiQue row (the message names the line).
    """
    if not path.is_file():
        raise ConfigError(f"--decompositions: no file {path}")
    pairs: list[Pair] = []
    rows = 0
    with path.open(encoding="utf-8") as lines:
        for number, line in enumerate(lines, 1):
            if not line.strip():
                continue
            rows += 1
            if rows <= start:
                continue
            if rows > start + limit:
                break
            try:
                row = json.loads(line)
                pairs += sub_question_pairs(row)
            except (ValueError, KeyError, TypeError, AttributeError) as exc:
                raise ConfigError(f"{path}, line {number}: not a MuSiQue row with question_decomposition "
                                  f"({type(exc).__name__}: {exc})") from None
    if not pairs:
        raise ConfigError(f"{path}: no decomposed question in rows {start + 1}-{start + limit}")
    return pairs


def score_at(confidences: Sequence[float | None], labels: Sequence[bool], theta: float) -> ThetaPoint:
    """Precision, recall and F1 of "confidence > ``theta``" as a predictor of ``labels`` (None is never above)."""
    predicted = [c is not None and c > theta for c in confidences]
    true_positives = sum(p and label for p, label in zip(predicted, labels))
    precision = true_positives / sum(predicted) if any(predicted) else 0.0
    recall = true_positives / sum(labels) if any(labels) else 0.0
    f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
    return ThetaPoint(theta, precision, recall, f1)


def sweep(confidences: Sequence[float | None], labels: Sequence[bool], *, start: float = 1.0) -> list[ThetaPoint]:
    """The points of "confidence > θ" for θ on a 0.1 grid from min(``start``, the lowest confidence) to the highest.

    ``None`` (no answer read) is never above θ.
    """
    finite = [c for c in confidences if c is not None]
    if not finite:
        return []
    low = min(round(start * 10), math.floor(min(finite) * 10))
    high = max(round(start * 10), math.ceil(max(finite) * 10))
    return [score_at(confidences, labels, tenth / 10) for tenth in range(low, high + 1)]


def best_point(points: Sequence[ThetaPoint], at_least: float = -math.inf) -> ThetaPoint | None:
    """The point with the best F1 among θ >= ``at_least`` (the lowest θ among ties)."""
    eligible = [p for p in points if p.theta >= at_least - 1e-9]
    return max(eligible, key=lambda p: (p.f1, -p.theta)) if eligible else None


def point_at(points: Sequence[ThetaPoint], theta: float) -> ThetaPoint | None:
    """The point at ``theta`` on the grid, if swept."""
    return next((p for p in points if abs(p.theta - theta) < 1e-9), None)


def read_pair(pair: Pair, retriever: Retriever, reader: AnswerJudge) -> dict[str, Any]:
    """One pair's record: its top-1 passage, its label, and the reader's answer and confidence."""
    started = time.perf_counter()
    hits = retriever.retrieve(pair.question, 1)
    passage = passage_text(hits[0].paragraph) if hits else ""
    reading = reader.answer([(pair.question, passage)])[0] if hits else None
    confidence = reading.confidence if reading is not None and math.isfinite(reading.confidence) else None
    return {"question": pair.question, "golds": list(pair.golds), "paragraph_id": hits[0].id if hits else None,
            "label": bool(cover_em(passage, pair.golds)), "answer": reading.text if reading is not None else None,
            "confidence": confidence, "seconds": time.perf_counter() - started}


def calibrate_theta(pairs: Sequence[Pair], retriever: Retriever, reader: AnswerJudge, scores: ScoreFile, *,
                    progress: bool = True) -> ThetaCalibration:
    """Read each pair not read yet (kept in ``scores`` as it is read) and choose θ.

    Raises:
        ConfigError: no pairs, or the reader read no answer in any pair.
    """
    if not pairs:
        raise ConfigError("calibrating θ needs at least one question with a gold answer")
    todo = [pair for pair in pairs if pair.key not in scores.items]
    for pair in tqdm(todo, desc="θ: reading top-1 passages", unit="pair", disable=not progress):
        scores.add(pair.key, read_pair(pair, retriever, reader))
    items = [scores.items[pair.key] for pair in pairs]
    confidences, labels = [item["confidence"] for item in items], [item["label"] for item in items]
    points = sweep(confidences, labels)
    chosen = best_point(points)
    if chosen is None:
        raise ConfigError(f"the reader read no answer in any of the {len(items)} pair(s); nothing to calibrate")
    return ThetaCalibration(chosen=chosen, from_one=best_point(points, 1.0),
                            at_paper=score_at(confidences, labels, PAPER_THETA),
                            pairs=len(items), positives=sum(1 for item in items if item["label"]),
                            seconds_per_pair=sum(item["seconds"] for item in items) / len(items))
