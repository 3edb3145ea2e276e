"""The Knowledge Filter: passage-level threshold, then sentence-level filtering."""

from __future__ import annotations

import pytest

from hopkit.judges.scripted import ScriptedRelevance
from hopkit.judges.sentences import SyntokSplitter
from hopkit.methods.migres.filter import KnowledgeFilter
from hopkit.records import Paragraph, ScoredParagraph

pytestmark = pytest.mark.unit

QUERY = "Where was Ada Quill born?"
ADA = Paragraph(11, "Ada Quill", "Ada Quill was an engineer. She was born in Tarsk. She liked bridges.")
MILL = Paragraph(12, "Mill", "The mill is old.")
HITS = [ScoredParagraph(ADA, 7.0), ScoredParagraph(MILL, 3.0)]


def judge(passage: float, sentences: dict[str, float]) -> ScriptedRelevance:
    table = {f"(Title: {ADA.title}) {ADA.text}": passage, f"(Title: {MILL.title}) {MILL.text}": 1.0}
    table.update({f"(Title: {ADA.title}) {s}": score for s, score in sentences.items()})
    return ScriptedRelevance(table)


SENTENCES = {"Ada Quill was an engineer.": 2.0, "She was born in Tarsk.": 6.0, "She liked bridges.": 3.5}


def never_used(paragraph_id: object) -> bool:
    return False


def test_passages_below_the_threshold_are_dropped() -> None:
    kept, outcomes = KnowledgeFilter(judge(4.0, SENTENCES), 3.0, False, SyntokSplitter()).filter(
        QUERY, HITS, never_used)
    assert [(k.paragraph_id, k.text, k.whole, k.relevance) for k in kept] == [(11, ADA.text, True, 4.0)]
    assert outcomes == [{"paragraph_id": 11, "relevance": 4.0, "outcome": "kept_whole"},
                        {"paragraph_id": 12, "relevance": 1.0, "outcome": "below_threshold"}]


def test_a_passage_outscoring_each_of_its_sentences_is_kept_whole() -> None:
    kept, outcomes = KnowledgeFilter(judge(6.5, SENTENCES), 3.0, True, SyntokSplitter()).filter(
        QUERY, HITS, never_used)
    assert [(k.text, k.whole) for k in kept] == [(ADA.text, True)]
    assert outcomes[0]["outcome"] == "kept_whole"


def test_otherwise_the_sentences_at_or_above_the_threshold_are_kept_in_order() -> None:
    kept, outcomes = KnowledgeFilter(judge(5.0, SENTENCES), 3.5, True, SyntokSplitter()).filter(
        QUERY, HITS, never_used)
    assert [(k.text, k.whole, k.relevance, k.title) for k in kept] == [
        ("She was born in Tarsk. She liked bridges.", False, 5.0, "Ada Quill")]
    assert outcomes[0] == {"paragraph_id": 11, "relevance": 5.0, "outcome": "kept_sentences", "sentences": 2,
                           "of": 3}


def test_exhausted_passages_are_dropped_before_scoring() -> None:
    scripted = judge(5.0, SENTENCES)
    kept, outcomes = KnowledgeFilter(scripted, 3.0, True, SyntokSplitter()).filter(
        QUERY, HITS, lambda paragraph_id: paragraph_id == 11)
    assert kept == []
    assert outcomes[0] == {"paragraph_id": 11, "relevance": None, "outcome": "used_twice"}
    assert all(ADA.text not in text for _, texts in scripted.calls for text in texts)


def test_the_threshold_is_in_the_judges_own_scale() -> None:
    negative = judge(-0.5, {})
    kept, _ = KnowledgeFilter(negative, -1.0, False, SyntokSplitter()).filter(QUERY, HITS[:1], never_used)
    assert len(kept) == 1
    kept, _ = KnowledgeFilter(negative, 0.0, False, SyntokSplitter()).filter(QUERY, HITS[:1], never_used)
    assert kept == []


def test_the_papers_rule_keeps_a_passage_for_at_least_80_percent_of_questions() -> None:
    from hopkit.methods.migres.filter import coverage_threshold

    best = [9.0, -1.0, 4.0, 2.0, 7.0, 0.5, 3.0, 6.0, 5.0, 8.0]
    delta = coverage_threshold(best)
    assert delta == 2.0 and sum(score >= delta for score in best) == 8
    assert coverage_threshold(best, coverage=1.0) == -1.0
    assert coverage_threshold([1.5]) == 1.5
    with pytest.raises(ValueError):
        coverage_threshold([])


def test_rerank_top_scores_only_the_best_hits_and_drops_the_rest_unscored() -> None:
    scripted = judge(4.0, SENTENCES)
    kept, outcomes = KnowledgeFilter(scripted, 3.0, False, SyntokSplitter(), rerank_top=1).filter(
        QUERY, HITS, never_used)
    assert [k.paragraph_id for k in kept] == [11]
    assert outcomes == [{"paragraph_id": 11, "relevance": 4.0, "outcome": "kept_whole"},
                        {"paragraph_id": 12, "relevance": None, "outcome": "not_reranked"}]
    assert [list(texts) for _, texts in scripted.calls] == [[f"(Title: {ADA.title}) {ADA.text}"]]


def test_rerank_top_counts_the_hits_left_after_the_memory_drops_the_used_ones() -> None:
    scripted = judge(4.0, SENTENCES)
    _, outcomes = KnowledgeFilter(scripted, 3.0, False, SyntokSplitter(), rerank_top=1).filter(
        QUERY, HITS, lambda paragraph_id: paragraph_id == 11)
    assert [o["outcome"] for o in outcomes] == ["used_twice", "below_threshold"]  # the mill is scored
    assert [list(texts) for _, texts in scripted.calls] == [[f"(Title: {MILL.title}) {MILL.text}"]]


def test_rerank_top_above_the_hits_scores_them_all_as_the_paper() -> None:
    everything = KnowledgeFilter(judge(5.0, SENTENCES), 3.5, True, SyntokSplitter()).filter(QUERY, HITS, never_used)
    assert KnowledgeFilter(judge(5.0, SENTENCES), 3.5, True, SyntokSplitter(), rerank_top=50).filter(
        QUERY, HITS, never_used) == everything


@pytest.mark.parametrize("bad", [0, -3, True, 2.0])
def test_rerank_top_must_be_a_positive_integer(bad: object) -> None:
    from hopkit.errors import ConfigError

    with pytest.raises(ConfigError, match="rerank_top must be a positive integer or None"):
        KnowledgeFilter(judge(5.0, {}), 3.0, True, SyntokSplitter(), rerank_top=bad)  # type: ignore[arg-type]
