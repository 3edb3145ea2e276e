"""SearChain's Tree-of-Reasoning (Section 3.3, "Node-identify Depth-first Search") and the correct path R.

Each round's Chain-of-Query is a :class:`Branch` of the tree, kept with the node it
restarted from (the node fed back in the round before). Each node processed by IR is
a :class:`NodeRecord` (Algorithm 1's ``R.add``: its query, the answer on the correct
path, the passage retrieved for it); a node whose query repeats a processed one
resolves to that record. The correct path is the last branch: the path of the branch
it grew from up to the node it restarted from, then that node, then the last branch's
own nodes (each record once).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Final

from hopkit.methods.searchain.feedback import FEEDBACK_VERDICTS, Verdict
from hopkit.parsing.chain import Chain
from hopkit.records import Paragraph

#: Table 2's knowledge sources, by the verdict of a processed node.
SOURCES: Final = {"kept": "llm", "corrected": "corrected", "completed": "completed", "left_unsolved": "unsolved"}


@dataclass(frozen=True)
class NodeRecord:
    """A node IR processed.

    Attributes:
        query: q_i.
        llm_answer: a_i, the model's answer (None for an unsolved node).
        verdict: kept, corrected, completed or left_unsolved.
        passage: d_i, the passage read (None when nothing was retrieved).
        reader_answer: g, the reader's answer ("" when the reader was not asked or found none).
        confidence: f, the reader's confidence (None when it was not asked or found nothing).
        round: the round it was processed in, from 1.
        step: the id of its ``verify`` step in the trace (None outside a trace block).
    """

    query: str
    llm_answer: str | None
    verdict: Verdict
    passage: Paragraph | None
    reader_answer: str = ""
    confidence: float | None = None
    round: int = 1
    step: int | None = None

    @property
    def answer(self) -> str:
        """The answer on the correct path: the reader's when it was fed back, else the model's."""
        if self.verdict in FEEDBACK_VERDICTS:
            return self.reader_answer
        return self.llm_answer or ""


@dataclass(frozen=True)
class PathNode:
    """A node of the correct path: its query and answer, and its record (None: never processed)."""

    query: str
    answer: str
    record: NodeRecord | None


@dataclass
class Branch:
    """One round's chain.

    Attributes:
        round: the round, from 1.
        generation: the model's text, as parsed.
        chain: the parsed chain.
        restart: the record of the node this branch restarted from (None for the first).
        resolved: per node of the chain, the record it resolved to (None: not reached).
        verdicts: per node, its verdict in this round.
        feedback_at: the position of the node fed back in this round (None: every node passed).
        step: the id of the round's ``reason`` step.
    """

    round: int
    generation: str
    chain: Chain
    restart: NodeRecord | None = None
    resolved: list[NodeRecord | None] = field(default_factory=list)
    verdicts: list[Verdict] = field(default_factory=list)
    feedback_at: int | None = None
    step: int | None = None

    @property
    def fed_back(self) -> NodeRecord | None:
        """The record of the node fed back in this round (None: every node passed)."""
        return self.resolved[self.feedback_at] if self.feedback_at is not None else None


class ReasoningTree:
    """The branches of one question and the records of the nodes IR processed."""

    def __init__(self) -> None:
        self.branches: list[Branch] = []
        self.records: list[NodeRecord] = []

    def add_branch(self, branch: Branch) -> Branch:
        """``T.AddChild(CoQ)``: the branch restarts from the node the last branch fed back."""
        if self.branches:
            branch.restart = self.branches[-1].fed_back
        self.branches.append(branch)
        return branch

    def add_record(self, record: NodeRecord) -> int:
        """``R.add``: keep a processed node; returns its index."""
        self.records.append(record)
        return len(self.records) - 1

    def correct_path(self) -> list[PathNode]:
        """The path to the last branch's leaf (empty when no chain was written)."""
        path: list[PathNode] = []
        for branch in self.branches:
            if branch.restart is not None:
                cut = next((i for i, node in enumerate(path) if node.record is branch.restart), len(path))
                path = path[:cut] + [PathNode(branch.restart.query, branch.restart.answer, branch.restart)]
            else:
                path = []
            for node, record in zip(branch.chain.nodes, branch.resolved + [None] * len(branch.chain.nodes)):
                if record is not None and any(kept.record is record for kept in path):
                    continue
                if record is None:
                    path.append(PathNode(node.query, node.answer or "", None))
                else:
                    path.append(PathNode(record.query, record.answer, record))
        return path

    def knowledge_sources(self) -> dict[str, int]:
        """Table 2: processed nodes whose knowledge came from the model, was corrected or was
        completed by IR (and those left unsolved)."""
        counts = dict.fromkeys(SOURCES.values(), 0)
        for record in self.records:
            counts[SOURCES[record.verdict]] += 1
        return counts

    def verdict_counts(self) -> dict[str, int]:
        """How many nodes of every branch got each verdict."""
        counts: dict[str, int] = {}
        for branch in self.branches:
            for verdict in branch.verdicts:
                counts[verdict] = counts.get(verdict, 0) + 1
        return counts
