"""Judging stored runs: each answer judged once per judge, stored at once, resumed after a stop,
and llm_accuracy reported only for a run judged on every scored question."""

from __future__ import annotations

from pathlib import Path

import pytest

from hopkit.errors import LLMError, StoreError
from hopkit.evaluation.llm_judge import AccuracyJudge, JudgeIdentity
from hopkit.judging_runs import accuracy_by_question, choose_judge, judge_run
from hopkit.llm.fake import ScriptedLLM
from hopkit.records import Corpus, Paragraph, Query
from hopkit.scoring_runs import score_run, score_runs
from hopkit.store import DBConnection, QueryResult, RunInfo, RunSpec, Store, StoredVerdict, VerdictStore

pytestmark = pytest.mark.unit

ANSWERS = {"q0": "Paris", "q1": "Lyon", "q2": "", "q3": "Rome"}  # q2 fails


def corpus() -> Corpus:
    paragraphs = (Paragraph(0, "France", "Paris is the capital of France."),)
    queries = tuple(Query(id=f"q{i}", text=f"Question {i}?", answers=(gold,), gold_paragraph_ids=(0,),
                          gold_titles=("France",))
                    for i, gold in enumerate(["Paris", "Marseille", "Nice", "Rome"]))
    return Corpus(name="toy", paragraphs=paragraphs, queries=queries)


@pytest.fixture
def stores(tmp_path: Path) -> tuple[Store, VerdictStore]:
    factory = DBConnection(f"sqlite:///{tmp_path / 'hopkit.db'}").get_session_factory()
    store = Store(factory)
    store.add_corpus(corpus())
    return store, VerdictStore(factory)


def record_run(store: Store, answers: dict[str, str] = ANSWERS, name: str = "nor") -> RunInfo:
    run = store.ensure_run(RunSpec(name=name, method="nor", dataset="toy", config={"name": name}))
    for query_id, prediction in answers.items():
        error = "LLMError: down" if not prediction else None
        store.record_result(run.run_id, QueryResult(query_id, prediction, (), {}, error=error))
    return store.run(run.run_id)


def asking_judge(llm: ScriptedLLM) -> AccuracyJudge:
    """A judge asked about every answer, exact matches too, so each answer reaches the model."""
    return AccuracyJudge(llm, ask_exact_matches=True)


def by_gold(prompt: str) -> str:
    """Says Yes when the prediction is the gold answer, as a perfect judge would."""
    prediction = prompt.split("Prediction\n", 1)[1].split("\n", 1)[0]
    gold = prompt.split("Ground-truth Answer\n", 1)[1].split("\n", 1)[0]
    return "Yes" if prediction == gold else "No."


def test_every_answer_is_judged_once_and_failed_ones_not_at_all(stores: tuple[Store, VerdictStore]) -> None:
    store, verdicts = stores
    run = record_run(store)
    llm = ScriptedLLM(by_gold)
    outcome = judge_run(store, verdicts, run, asking_judge(llm), progress=False)
    assert (outcome.answered, outcome.already, outcome.judged_now, outcome.unreadable) == (3, 0, 3, 0)
    assert len(llm.prompts) == 3 and not any("Question 2?" in p for p in llm.prompts)
    again = judge_run(store, verdicts, run, asking_judge(llm), progress=False)
    assert (again.already, again.judged_now) == (3, 0) and len(llm.prompts) == 3
    stored = verdicts.verdicts(run.run_id, "scripted", outcome.judge.prompt_version)
    assert {q: v.correct for q, v in stored.items()} == {"q0": True, "q1": False, "q3": True}


def test_only_the_chosen_questions_are_judged(stores: tuple[Store, VerdictStore]) -> None:
    store, verdicts = stores
    run = record_run(store)
    llm = ScriptedLLM(by_gold)
    outcome = judge_run(store, verdicts, run, asking_judge(llm), progress=False, query_ids={"q0", "q2"})
    assert (outcome.answered, outcome.judged_now) == (1, 1)   # q2 failed: nothing to judge
    assert [p for p in llm.prompts if "Question 0?" in p] == llm.prompts
    assert judge_run(store, verdicts, run, asking_judge(llm), progress=False).judged_now == 2   # q1, q3 left


def test_a_stopped_judging_keeps_its_verdicts_and_resumes(stores: tuple[Store, VerdictStore]) -> None:
    store, verdicts = stores
    run = record_run(store)
    calls: list[str] = []

    def stops_at_the_second(prompt: str) -> str:
        calls.append(prompt)
        if len(calls) == 2:
            raise KeyboardInterrupt
        return by_gold(prompt)

    with pytest.raises(KeyboardInterrupt):
        judge_run(store, verdicts, run, asking_judge(ScriptedLLM(stops_at_the_second)), progress=False)
    identity = asking_judge(ScriptedLLM([])).identity
    assert set(verdicts.verdicts(run.run_id, *vars(identity).values())) == {"q0"}
    llm = ScriptedLLM(by_gold)
    outcome = judge_run(store, verdicts, run, asking_judge(llm), progress=False)
    assert (outcome.already, outcome.judged_now) == (1, 2) and len(llm.prompts) == 2


def test_a_changed_answer_is_judged_again(stores: tuple[Store, VerdictStore]) -> None:
    store, verdicts = stores
    run = record_run(store)
    judge_run(store, verdicts, run, asking_judge(ScriptedLLM(by_gold)), progress=False)
    store.record_result(run.run_id, QueryResult("q1", "Marseille", (), {}))  # a rerun answered it anew
    store.record_result(run.run_id, QueryResult("q2", "Nice", (), {}))  # the failed one, retried
    llm = ScriptedLLM(by_gold)
    outcome = judge_run(store, verdicts, run, asking_judge(llm), progress=False)
    assert (outcome.answered, outcome.already, outcome.judged_now) == (4, 2, 2)
    assert sorted(p.split("Prediction\n")[1].split("\n")[0] for p in llm.prompts) == ["Marseille", "Nice"]


def test_unreadable_verdicts_are_stored_as_such_and_counted(stores: tuple[Store, VerdictStore]) -> None:
    store, verdicts = stores
    run = record_run(store)
    outcome = judge_run(store, verdicts, run, asking_judge(ScriptedLLM(["Yes", "Hmm.", "No"])), progress=False)
    assert outcome.unreadable == 1
    stored = verdicts.verdicts(run.run_id, *vars(outcome.judge).values())
    assert stored["q1"] == StoredVerdict("q1", "Lyon", None, "Hmm.")
    assert judge_run(store, verdicts, run, asking_judge(ScriptedLLM([])), progress=False).unreadable == 1


def test_a_judge_that_fails_stops_with_the_verdicts_before_it_stored(stores: tuple[Store, VerdictStore]) -> None:
    store, verdicts = stores
    run = record_run(store)
    with pytest.raises(LLMError, match="ran out"):
        judge_run(store, verdicts, run, asking_judge(ScriptedLLM(["Yes"])), progress=False)
    assert len(verdicts.verdicts(run.run_id, *vars(asking_judge(ScriptedLLM([])).identity).values())) == 1


def test_accuracy_by_question() -> None:
    results = [QueryResult("a", "Paris", (), {}), QueryResult("b", "", (), {}, error="boom"),
               QueryResult("c", "Lyon", (), {})]
    verdicts = {"a": StoredVerdict("a", "Paris", True, "Yes"), "c": StoredVerdict("c", "Lyon", None, "?")}
    assert accuracy_by_question(results, verdicts) == {"a": 1.0, "b": 0.0, "c": 0.0}
    assert accuracy_by_question(results, {"a": verdicts["a"]}) is None
    stale = {**verdicts, "a": StoredVerdict("a", "Pariss", True, "Yes")}  # judged an older answer
    assert accuracy_by_question(results, stale) is None


def test_the_scorer_reports_llm_accuracy_only_for_a_fully_judged_run(stores: tuple[Store, VerdictStore]) -> None:
    store, verdicts = stores
    judged, partly = record_run(store), record_run(store, {"q0": "Paris", "q1": "Lyon"}, name="other")
    judge = asking_judge(ScriptedLLM(by_gold))
    judge_run(store, verdicts, judged, judge, progress=False)
    verdicts.record(partly.run_id, *vars(judge.identity).values(), StoredVerdict("q0", "Paris", True, "Yes"))
    full, partial = score_runs(store, [judged, partly], verdicts=verdicts, judge=judge.identity)
    estimate = full.metrics["llm_accuracy"]
    assert (estimate.mean, estimate.n) == (pytest.approx(2 / 4), 4)  # q0, q3 yes; q1 no; q2 failed
    assert estimate.low <= estimate.mean <= estimate.high
    assert "llm_accuracy" not in partial.metrics
    unjudged, scores = score_run(store, judged)
    assert "llm_accuracy" not in unjudged.metrics and all(s.llm_accuracy is None for s in scores)
    other_judge = JudgeIdentity("another-model", judge.identity.prompt_version)
    assert "llm_accuracy" not in score_runs(store, [judged], verdicts=verdicts, judge=other_judge)[0].metrics


def test_choose_judge(stores: tuple[Store, VerdictStore]) -> None:
    store, verdicts = stores
    run = record_run(store)
    assert choose_judge(verdicts, [run.run_id]) is None
    first = asking_judge(ScriptedLLM(by_gold)).identity
    verdicts.record(run.run_id, *vars(first).values(), StoredVerdict("q0", "Paris", True, "Yes"))
    verdicts.record(run.run_id, first.model_id, "some-other-prompt/chat", StoredVerdict("q0", "Paris", True, "Y"))
    assert choose_judge(verdicts, [run.run_id]) == first
    second = JudgeIdentity("judge-b", first.prompt_version)
    verdicts.record(run.run_id, *vars(second).values(), StoredVerdict("q0", "Paris", False, "No"))
    assert choose_judge(verdicts, [run.run_id]) is None
    assert choose_judge(verdicts, [run.run_id], "judge-b") == second
    with pytest.raises(StoreError, match="judge 'judge-c' has no verdict.*judge-b"):
        choose_judge(verdicts, [run.run_id], "judge-c")


def test_a_stale_run_is_not_judged(stores: tuple[Store, VerdictStore]) -> None:
    store, verdicts = stores
    run = record_run(store)
    changed = Corpus(name="toy", paragraphs=(Paragraph(0, "France", "Paris is in France."),),
                     queries=corpus().queries)
    store.add_corpus(changed, replace=True)
    llm = ScriptedLLM(by_gold)
    with pytest.raises(StoreError, match="re-ingested"):
        judge_run(store, verdicts, store.run(run.run_id), asking_judge(llm), progress=False)
    assert llm.prompts == []
