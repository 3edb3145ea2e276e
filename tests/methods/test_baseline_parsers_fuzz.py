"""What the newer baselines read from model output, fuzzed: ALCE's citation marks, "irrelevant" and
RERANK's citation recall; FLARE's masked query and look-ahead sentence; ITER-RETGEN's next query.
Model output is untrusted text: none of these may raise on it or give a value out of its range."""

from __future__ import annotations

import math
import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from hopkit.judges.scripted import ScriptedEntailment
from hopkit.judges.sentences import SyntokSplitter
from hopkit.llm.protocol import TokenScores
from hopkit.methods.alce.prompts import is_irrelevant, without_citations
from hopkit.methods.alce.rerank import best_sample, citation_recall
from hopkit.methods.flare.method import masked_query
from hopkit.methods.iter_retgen.method import next_query

pytestmark = pytest.mark.unit

ANY = st.text(max_size=300)
MARKED = st.lists(st.one_of(st.text(alphabet="abc XY.,'", max_size=12),
                            st.integers(min_value=0, max_value=12).map(lambda n: f"[{n}]")), max_size=20).map("".join)
SPLITTER = SyntokSplitter()
DOCUMENTS = [("Tarsk", "Tarsk is a port."), ("Orl", "The Orl is a river.")]


@settings(max_examples=300)
@given(st.one_of(ANY, MARKED))
def test_citation_marks_are_removed_whatever_the_answer(answer: str) -> None:
    cleaned = without_citations(answer)
    assert re.search(r"\[\d+\]", cleaned) is None and without_citations(cleaned) == cleaned
    assert is_irrelevant(answer) in (True, False)


@settings(max_examples=100, deadline=None)
@given(st.one_of(ANY, MARKED), st.floats(min_value=0.0, max_value=1.0))
def test_citation_recall_stays_a_share_and_needs_a_valid_mark(answer: str, entailment: float) -> None:
    recall = citation_recall(answer, DOCUMENTS, ScriptedEntailment(lambda premise, claim: entailment), SPLITTER)
    assert 0.0 <= recall <= 1.0
    if not re.search(r"\[[12]", answer) or entailment < 0.5:
        assert recall == 0.0


@given(st.lists(st.floats(min_value=0.0, max_value=1.0), max_size=6))
def test_rerank_keeps_the_first_best_sample_or_none(recalls: list[float]) -> None:
    best = best_sample(recalls)
    if not recalls or max(recalls) == 0.0:
        assert best is None
    else:
        assert best == recalls.index(max(recalls))


@given(st.lists(st.tuples(st.text(max_size=8), st.floats(min_value=-20.0, max_value=0.0)), max_size=12),
       st.floats(min_value=0.0, max_value=1.0))
def test_flare_masks_exactly_the_tokens_below_beta(pairs: list[tuple[str, float]], beta: float) -> None:
    scores = TokenScores(tokens=tuple(t for t, _ in pairs), logprobs=tuple(v for _, v in pairs), prompt_tokens=1,
                         seconds=0.0)
    query, masked = masked_query(scores, beta)
    # the tokens as they entered hopkit (a NUL or a lone surrogate is U+FFFD there)
    assert masked == tuple(t for t, v in zip(scores.tokens, scores.logprobs) if math.exp(v) < beta)
    assert query == query.strip() and "  " not in query


@settings(max_examples=100, deadline=None)
@given(ANY)
def test_flare_s_look_ahead_sentence_is_a_prefix_of_the_generation(generation: str) -> None:
    first = SPLITTER.first(generation)
    assert first == "" or first.strip() in generation


@given(ANY, ANY)
def test_iter_retgen_s_next_query_is_the_question_then_the_generation_on_one_line(question: str,
                                                                                  generation: str) -> None:
    query = next_query(question, generation)
    assert query == " ".join(f"{question} {generation}".split()) and "\n" not in query
