"""MIGRES's steps: the typed payload of each kind and module, and the recorders that store them.

MIGRES uses the shared kinds, naming its module in ``extra.module``; each step names the
one before it as its parent, except ``verify`` steps, children of their ``extract``::

    retrieve (retriever + knowledge filter, one per query) -> [reason (knowledge)]
      -> extract (leaf) -> verify (NLI, one per fact) ...
      -> reason (main, unanswerable) -> reason (query) -> retrieve ... -> read (main answers)

A module whose response could not be read twice is a step of its kind with output null and
``extra.failed`` true (:class:`MIGRESFailure`). Each payload is a class below
(:data:`PAYLOADS`); ``docs/traces.md`` lists their JSON fields (a test checks it against these
classes). Read a stored step with :func:`migres_payload`. The question's summary, stored beside
the steps, reads as :class:`MIGRESSummary`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal, Mapping, Sequence

from hopkit.methods.migres.filter import Knowledge
from hopkit.methods.migres.modules import Asked
from hopkit.methods.migres.responses import MainVerdict
from hopkit.records import ScoredParagraph
from hopkit.traces import Step, cite
from hopkit.traces.payload import Payload, Record, at, optional, payload_of, record
from hopkit.traces.summary import Summary

_KEPT = ("kept_whole", "kept_sentences")


@dataclass(frozen=True)
class Filtered(Record):
    """What the knowledge filter did with one hit: its ``relevance`` (None when not scored) and
    ``outcome``: ``kept_whole``, ``kept_sentences`` (``sentences`` kept ``of`` the passage's),
    ``below_threshold``, ``used_twice`` or ``not_reranked``."""

    paragraph_id: int
    relevance: float | None
    outcome: str
    sentences: int | None = optional()
    of: int | None = optional()


@dataclass(frozen=True, kw_only=True)
class MIGRESRetrieve(Payload):
    """One query's retrieval and the knowledge filter's verdict on each BM25 hit (the step's
    ``paragraph_ids`` and ``scores``): ``k`` hits per query, δ the ``threshold``, ``reranked``
    the passages the relevance judge scored, ``rerank_top`` only when set; ``searched`` the second
    search's query when the first had fewer than ``k`` hits (its hits are the step's)."""

    kind = "retrieve"
    query: str = at("input")
    kept: tuple[Filtered, ...] = at("output", "kept")
    dropped: tuple[Filtered, ...] = at("output", "dropped")
    skipped: None = at("output", "skipped", default=None)
    module: Literal["retriever"] = "retriever"
    k: int
    threshold: float
    reranked: int = 0
    rerank_top: int | None = at("extra", "rerank_top", default=None, omit_none=True)
    searched: str | None = at("extra", "searched", default=None, omit_none=True)


@dataclass(frozen=True, kw_only=True)
class MIGRESKnowledge(Payload):
    """LLM knowledge prompting, when no passage passed the filter: the query and the model's text."""

    kind = "reason"
    query: str = at("input")
    text: str = at("output")
    module: Literal["knowledge"] = "knowledge"


@dataclass(frozen=True)
class Shown(Record):
    """A passage the Leaf Module's prompt showed as ``Passage index`` (LLM knowledge has no id)."""

    index: int
    paragraph_id: int | None
    query: str
    relevance: float | None
    whole: bool


@dataclass(frozen=True)
class Fact(Record):
    """A fact the Leaf Module extracted: its ``support_passages`` (indices in the prompt) and the
    corpus ``paragraph_ids`` they are, the highest P(entailed) (None without the NLI check), and
    its ``outcome``: ``learnt``, ``already_known``, ``not_entailed`` or ``no_valid_support``."""

    info: str
    support_passages: tuple[int, ...]
    paragraph_ids: tuple[int, ...]
    entailment: float | None
    outcome: str


@dataclass(frozen=True, kw_only=True)
class MIGRESLeaf(Payload):
    """The Leaf Module's call: its question; each fact with its fate; the passages shown (the
    step's ``paragraph_ids`` are their corpus ids) and the model's ``generations``."""

    kind = "extract"
    question: str = at("input")
    facts: tuple[Fact, ...] = at("output")
    module: Literal["leaf"] = "leaf"
    passages: tuple[Shown, ...] = ()
    generations: tuple[str, ...] = ()


@dataclass(frozen=True, kw_only=True)
class MIGRESVerify(Payload):
    """The NLI check of a fact against its cited passages: entailed or not, P(entailed) per passage."""

    kind = "verify"
    fact: str = at("input")
    entailed: bool = at("output")
    module: Literal["nli"] = "nli"
    probabilities: tuple[float, ...] = ()
    judge: str = ""


@dataclass(frozen=True, kw_only=True)
class _MainVerdict(Payload):
    """What the Main Module's verdicts share: the ``iteration``, the facts known, its explanation,
    the model's ``generations``; ``reused``: no fact was learnt since the last call, the verdict is
    reused without a model call."""

    kind = "reason"
    question: str = at("input")
    module: str
    iteration: int
    known_facts: int
    explanation: str = ""
    generations: tuple[str, ...] = ()
    reused: bool = False


@dataclass(frozen=True, kw_only=True)
class MIGRESUnanswerable(_MainVerdict):
    """The Main Module found the information insufficient: its verdict and what is missing."""

    kind = "reason"
    answer: str = at("output", "answer")
    confidence: float = at("output", "confidence")
    missing_information: str = at("output", "missing_information")
    module: Literal["main"] = "main"


@dataclass(frozen=True, kw_only=True)
class MIGRESAnswer(_MainVerdict):
    """The Main Module's answer (``final_main``: the last iteration's, which must answer)."""

    kind = "read"
    answer: str = at("output")
    module: Literal["main", "final_main"] = "main"


@dataclass(frozen=True, kw_only=True)
class MIGRESQueries(Payload):
    """The Query Generator: the new queries kept for the missing information, those asked before
    (``repeated``) and those over ``max_new_queries`` (``over_limit``)."""

    kind = "reason"
    missing: str = at("input")
    queries: tuple[str, ...] = at("output")
    module: Literal["query"] = "query"
    repeated: tuple[str, ...] = ()
    over_limit: tuple[str, ...] = ()
    generations: tuple[str, ...] = ()


@dataclass(frozen=True, kw_only=True)
class MIGRESFailure(Payload):
    """A module whose response could not be read, even when asked once more: both raw responses
    and the ``error``; the Main Module's also its ``iteration``. One class per kind below."""

    kind = "reason"
    module: str
    failed: Literal[True] = True
    error: str | None = None
    generations: tuple[str, ...] = ()
    iteration: int | None = at("extra", "iteration", default=None, omit_none=True)


@dataclass(frozen=True, kw_only=True)
class MIGRESFailedLeaf(MIGRESFailure):
    """The Leaf Module's response could not be read."""

    kind = "extract"


@dataclass(frozen=True, kw_only=True)
class MIGRESFailedAnswer(MIGRESFailure):
    """The last Main Module's response could not be read (the answer is taken from its text)."""

    kind = "read"


#: MIGRES's payloads; a failure first, as its kind is another payload's.
PAYLOADS: tuple[type[Payload], ...] = (MIGRESFailure, MIGRESFailedLeaf, MIGRESFailedAnswer, MIGRESRetrieve,
                                       MIGRESKnowledge, MIGRESLeaf, MIGRESVerify, MIGRESUnanswerable, MIGRESAnswer,
                                       MIGRESQueries)

MIGRESPayload = (MIGRESFailure | MIGRESRetrieve | MIGRESKnowledge | MIGRESLeaf | MIGRESVerify | MIGRESUnanswerable
                 | MIGRESAnswer | MIGRESQueries)


StopReason = Literal["answered", "max_iterations", "no_new_queries", "unreadable_main", "unreadable_query",
                     "unreadable_leaf"]


@dataclass(frozen=True, kw_only=True)
class MIGRESSummary(Summary):
    """MIGRES's summary of one question, for Tables 4 and 5 (read from ``GenerationResult.metadata``
    or a stored result; the model calls, seconds and tokens are the usage record's, not the summary's).

    Attributes:
        iterations: Main Module iterations.
        stop_reason: why the loop ended.
        confidence: the answer's confidence (1-5), None when no verdict was read.
        passages_used: distinct corpus passages given to the Leaf Module (the result's ``chunk_ids``).
        knowledge_tokens: tokens of knowledge shown to the Leaf Module (Table 5's "# Tokens").
        knowledge_prompts: LLM knowledge promptings.
        reranked_passages: passages the relevance judge scored.
        queries: every query asked, the question first.
        known_information: the facts learnt, in order.
    """

    iterations: int
    stop_reason: StopReason
    confidence: int | None = None
    passages_used: int = 0
    knowledge_tokens: int = 0
    knowledge_prompts: int = 0
    reranked_passages: int = 0
    queries: tuple[str, ...] = ()
    known_information: tuple[str, ...] = ()


def migres_payload(step: Step) -> MIGRESPayload | None:
    """The payload of one of MIGRES's steps, by its kind and module (None for another kind).

    Raises:
        TraceError: the step does not read as its payload.
    """
    return payload_of(step, PAYLOADS)  # type: ignore[return-value]


def record_retrieval(query: str, hits: Sequence[ScoredParagraph], outcomes: Sequence[Mapping[str, Any]], k: int,
                     threshold: float, parent: int | None, *, rerank_top: int | None = None,
                     searched: str | None = None) -> int | None:
    """One query's retrieval and what the knowledge filter did with each hit (how many it scored)."""
    filtered = [Filtered(**o) for o in outcomes]
    payload = MIGRESRetrieve(query=query, kept=tuple(f for f in filtered if f.outcome in _KEPT),
                             dropped=tuple(f for f in filtered if f.outcome not in _KEPT), k=k, threshold=threshold,
                             reranked=sum(1 for f in filtered if f.relevance is not None), rerank_top=rerank_top,
                             searched=searched)
    return record(payload, parent=parent, hits=hits)


def record_knowledge(query: str, text: str, parent: int | None) -> int | None:
    """LLM knowledge prompting, when no passage passed the filter."""
    return record(MIGRESKnowledge(query=query, text=text), parent=parent)


def record_failure(kind: str, module: str, asked: Asked[Any], parent: int | None, *,
                   iteration: int | None = None) -> int | None:
    """A module whose response could not be read, even when asked once more."""
    failure = {"extract": MIGRESFailedLeaf, "read": MIGRESFailedAnswer}.get(kind, MIGRESFailure)
    return record(failure(module=module, error=asked.error, generations=asked.generations, iteration=iteration),
                  parent=parent)


def record_leaf(question: str, shown: Sequence[Knowledge], facts: Sequence[Mapping[str, Any]],
                generations: Sequence[str], parent: int | None) -> int | None:
    """The Leaf Module's call: the knowledge shown and each fact with its fate."""
    passages = tuple(Shown(i, k.paragraph_id, k.query, k.relevance, k.whole) for i, k in enumerate(shown))
    payload = MIGRESLeaf(question=question, facts=tuple(Fact(**fact) for fact in facts), passages=passages,
                         generations=tuple(generations))
    return record(payload, parent=parent,
                  paragraph_ids=[k.paragraph_id for k in shown if k.paragraph_id is not None])


def record_verification(leaf: int | None, fact: str, paragraph_ids: Sequence[int], probabilities: Sequence[float],
                        entailed: bool, judge: str) -> None:
    """The NLI check of one fact against the passages it cites (a child of the leaf step)."""
    record(MIGRESVerify(fact=fact, entailed=entailed, probabilities=tuple(probabilities), judge=judge), parent=leaf,
           paragraph_ids=paragraph_ids, scores={"entailment": max(probabilities, default=0.0)})


def record_citation(leaf: int | None, fact: str, paragraph_ids: Sequence[int], score: float | None) -> None:
    """A kept fact, citing its corpus passages."""
    if leaf is not None and paragraph_ids:
        cite(leaf, paragraph_ids, claim=fact, score=score)


def record_main(verdict: MainVerdict, asked: Asked[MainVerdict], question: str, facts: int, iteration: int,
                final: bool, answered: bool, parent: int | None, *, reused: bool = False) -> int | None:
    """The Main Module's verdict: ``read`` when it answers, else ``reason``."""
    common: dict[str, Any] = dict(question=question, iteration=iteration, known_facts=facts,
                                  explanation=verdict.explanation, generations=asked.generations, reused=reused)
    scores = {"confidence": verdict.confidence}
    if answered:
        return record(MIGRESAnswer(answer=verdict.answer, module="final_main" if final else "main", **common),
                      parent=parent, scores=scores)
    return record(MIGRESUnanswerable(answer=verdict.answer, confidence=verdict.confidence,
                                     missing_information=verdict.missing_information, **common),
                  parent=parent, scores=scores)


def record_queries(missing: str, new: Sequence[str], repeated: Sequence[str], dropped: Sequence[str],
                   generations: Sequence[str], parent: int | None) -> int | None:
    """The Query Generator: the new queries kept, those repeating earlier ones, those over the limit."""
    return record(MIGRESQueries(missing=missing, queries=tuple(new), repeated=tuple(repeated),
                                over_limit=tuple(dropped), generations=tuple(generations)), parent=parent)
