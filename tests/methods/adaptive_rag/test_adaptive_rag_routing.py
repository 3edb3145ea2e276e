"""Adaptive-RAG end to end below the model: silver labels from stored NoR, OneR and IRCoT runs in a real
SQLite store, the classifier trained by `hopkit train-router` and saved, and the router sending each
question to the strategy its label names, its steps kept under that strategy's name."""

from __future__ import annotations

from pathlib import Path

import pytest

from hopkit.cli import main
from hopkit.errors import ConfigError
from hopkit.llm.fake import ScriptedLLM
from hopkit.methods.adaptive_rag import METHOD, AdaptiveRAGConfig
from hopkit.methods.adaptive_rag.steps import AdaptiveRoute
from hopkit.methods.registry import MethodParts, entries
from hopkit.records import Corpus, Paragraph, Query
from hopkit.retrieval.bm25 import BM25Retriever
from hopkit.store.connection import DBConnection
from hopkit.store.records import QueryResult, RunSpec
from hopkit.store.store import Store
from hopkit.traces import collect_trace

pytestmark = pytest.mark.unit

PARAGRAPHS = (Paragraph(0, "Tarsk", "Tarsk is a port on the Orl River."),
              Paragraph(1, "Ada Quill", "Ada Quill was an engineer from Tarsk."))
SIMPLE = [f"What colour is the {thing}?" for thing in ("sky", "grass", "snow", "coal", "blood", "sea")]
SINGLE = [f"Who wrote the novel {name}?" for name in ("Emma", "Ulysses", "Dracula", "Rebecca", "Beloved", "Ivanhoe")]
MULTI = [f"Where was the founder of the company that made the {thing} born?"
         for thing in ("Walkman", "Beetle", "Model T", "Game Boy", "Kindle", "Trabant")]
QUERIES = tuple(Query(f"q{i}", text, ("right",)) for i, text in enumerate(SIMPLE + SINGLE + MULTI))


def stored_strategy_runs(url: str) -> Store:
    """NoR right on the colour questions, OneR also on the novels, IRCoT also on the founders."""
    store = Store(DBConnection(url).get_session_factory())
    store.add_corpus(Corpus("hotpotqa", PARAGRAPHS, QUERIES))
    right_by = {"nor": SIMPLE, "oner": SIMPLE + SINGLE, "ircot": SIMPLE + SINGLE + MULTI}
    for method, right in right_by.items():
        run = store.ensure_run(RunSpec(method, method, "hotpotqa", {"method": method}))
        store.record_results(run.run_id, [QueryResult(q.id, "right" if q.text in right else "wrong") for q in QUERIES])
    return store


def test_the_router_is_trained_from_stored_runs_and_sends_each_question_to_its_strategy(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    url = f"sqlite:///{tmp_path / 'runs.db'}"
    store = stored_strategy_runs(url)
    path = tmp_path / "router.npz"
    assert main(["--db", url, "train-router", "--datasets", "hotpotqa", "--out", str(path), "--held-out", "0"]) == 0
    said = capsys.readouterr().out
    assert "18 questions: A (no retrieval) 6, B (single-step) 6, C (multi-step) 6; 12 labelled by the simplest" in said
    assert "labels from ircot" not in said  # on a multi-hop dataset IRCoT's answers cannot change a label
    assert path.is_file()

    llm = ScriptedLLM(lambda prompt: "So the answer is: Tarsk.")
    options = METHOD.as_run(AdaptiveRAGConfig(classifier=str(path), strategies="defaults"))
    router = METHOD.build(MethodParts(llm, BM25Retriever.build(PARAGRAPHS), options, "hotpotqa", lambda: PARAGRAPHS))
    routed = {}
    for query in (QUERIES[0], QUERIES[6], QUERIES[12]):
        with collect_trace() as trace:
            result = router.generate(query)
        route = trace.steps[0].payload(AdaptiveRoute)
        routed[query.text] = (route.label, result.metadata["strategy"])
        arm_steps = trace.steps[1:]
        assert all(step.extra["method"] == route.strategy for step in arm_steps)
        assert all(entries()["adaptive-rag"].payload(step) is not None for step in trace.steps)
        assert result.text == "Tarsk"
    assert list(routed.values()) == [("A", "nor"), ("B", "oner"), ("C", "ircot")]
    assert store.runs("hotpotqa")  # the store was only read


def test_questions_no_strategy_answers_take_the_datasets_kind_and_accuracy_is_measured_held_out(
        tmp_path: Path) -> None:
    from hopkit.methods.adaptive_rag.training import train_router

    store = stored_strategy_runs(f"sqlite:///{tmp_path / 'runs.db'}")
    outcome = train_router(store, ["hotpotqa"], held_out_share=0.3)
    assert outcome.held_out_accuracy is not None and 0 <= outcome.held_out_accuracy <= 1
    assert any(out for _, out in outcome.examples) and not all(out for _, out in outcome.examples)


def test_a_missing_run_or_classifier_file_is_a_clear_error(tmp_path: Path) -> None:
    from hopkit.methods.adaptive_rag.training import train_router

    store = Store(DBConnection(f"sqlite:///{tmp_path / 'empty.db'}").get_session_factory())
    store.add_corpus(Corpus("hotpotqa", PARAGRAPHS, QUERIES))
    with pytest.raises(ConfigError, match="no stored nor run on 'hotpotqa': run `hopkit run nor"):
        train_router(store, ["hotpotqa"])
    parts = MethodParts(ScriptedLLM(["x"]), BM25Retriever.build(PARAGRAPHS),
                        METHOD.as_run(AdaptiveRAGConfig(classifier=str(tmp_path / "gone.npz"))), "hotpotqa")
    with pytest.raises(ConfigError, match="gone.npz: no classifier file there"):
        METHOD.build(parts)


def test_the_prompted_classifier_reads_the_first_label_letter_and_falls_back_on_none() -> None:
    from hopkit.methods.adaptive_rag.classifiers import PromptedClassifier

    assert PromptedClassifier(ScriptedLLM([" B"])).classify("Who wrote Emma?").label == "B"
    unreadable = PromptedClassifier(ScriptedLLM(["Hmm, hard to say"]), fallback="C").classify("Who?")
    assert (unreadable.label, unreadable.readable) == ("C", False)


def test_the_report_draws_the_route_and_then_the_strategys_steps_with_its_own_template() -> None:
    from hopkit.traces.stored import stored_trace
    from tests.report.html.test_html_traces import page, text_of

    llm = ScriptedLLM(lambda prompt: "C" if prompt.rstrip().endswith("Answer:") and "Reply with the letter" in prompt
                      else "So the answer is: Tarsk.")
    options = METHOD.as_run(AdaptiveRAGConfig(strategies="defaults"))
    router = METHOD.build(MethodParts(llm, BM25Retriever.build(PARAGRAPHS), options, "hotpotqa", lambda: PARAGRAPHS))
    with collect_trace() as trace:
        result = router.generate(QUERIES[12])
    text = text_of(page("adaptive-rag", stored_trace("q1", result.metadata, trace)))
    assert "Route C: ircot, by the prompted model" in text
    ircot_only = text_of(page("IRCoT", stored_trace("q1", {}, trace)))  # the same steps as IRCoT draws them
    assert "stop:" in ircot_only and "stop:" in text


def test_training_leaves_out_the_first_questions_and_reads_ircot_only_where_it_decides(tmp_path: Path) -> None:
    from hopkit.methods.adaptive_rag.training import question_labels, strategy_runs, train_router

    store = stored_strategy_runs(f"sqlite:///{tmp_path / 'runs.db'}")
    outcome = train_router(store, ["hotpotqa"], held_out_share=0, skip_first=6)
    assert [e.query_id for e, _ in outcome.examples] == [q.id for q in QUERIES[6:]]
    assert [run.method for run in outcome.runs] == ["nor", "oner"]

    store.add_corpus(Corpus("nq", PARAGRAPHS, QUERIES))  # single-hop: IRCoT decides between B and C
    for method, right in {"nor": SIMPLE, "oner": SIMPLE + SINGLE[:3], "ircot": SINGLE}.items():
        run = store.ensure_run(RunSpec(method, method, "nq", {"method": method, "nq": True}))
        answered = [q for q in QUERIES if method != "ircot" or q.text in SINGLE + MULTI[:3]]
        store.record_results(run.run_id, [QueryResult(q.id, "right" if q.text in right else "wrong") for q in answered])
    labelled = question_labels(store, "nq", strategy_runs(store, "nq"), list(QUERIES))
    by_text = {e.question: e.label for e in labelled}
    assert [by_text[q] for q in SINGLE] == ["B"] * 3 + ["C"] * 3  # the last three: only IRCoT answers them
    assert [by_text[q] for q in MULTI[:3]] == ["B"] * 3  # none answers: the single-hop kind
    assert not set(MULTI[3:]) & set(by_text)  # IRCoT has not answered these, and it would decide them
    with pytest.raises(ConfigError, match="'nq' is single-hop: .*run IRCoT on it first"):
        question_labels(store, "nq", {**strategy_runs(store, "nq"), "C": None}, list(QUERIES))
    with pytest.raises(ConfigError, match="share no answered question past the first 18"):
        train_router(store, ["hotpotqa"], skip_first=18)


def test_a_run_routed_by_a_retrained_classifier_file_is_a_new_run(tmp_path: Path) -> None:
    from hopkit.options import run_options

    path = tmp_path / "router.npz"
    prompted = run_options(METHOD.as_run(AdaptiveRAGConfig()))
    assert "classifier_sha256" not in prompted  # the runs made before the digest keep their ids
    from hopkit.methods.adaptive_rag.trained import train

    train(SINGLE + MULTI, ["B"] * 6 + ["C"] * 6, ("A", "B", "C")).save(path)
    first = run_options(METHOD.as_run(AdaptiveRAGConfig(classifier=str(path))))
    train(SINGLE + MULTI, ["C"] * 6 + ["B"] * 6, ("A", "B", "C")).save(path)
    second = run_options(METHOD.as_run(AdaptiveRAGConfig(classifier=str(path))))
    assert first["classifier"] == second["classifier"] and first["classifier_sha256"] != second["classifier_sha256"]
    with pytest.raises(ConfigError, match=r"router.npz has SHA-256 \w+, not " + first["classifier_sha256"]):
        AdaptiveRAGConfig(classifier=str(path), classifier_sha256=first["classifier_sha256"])


def test_strategy_options_lay_over_the_strategies_and_the_saved_runs_value_keeps_their_identity() -> None:
    """Issue 71 changed NoR's, OneR's and IRCoT's defaults; ``strategy_options`` gives the routed strategies
    other values (BEFORE_ISSUE_71: those the campaign's saved cells ran with), and an unknown strategy is refused."""
    import copy

    from hopkit.methods.adaptive_rag.method import BEFORE_ISSUE_71
    from hopkit.options import run_options

    def strategies(config: AdaptiveRAGConfig) -> dict:
        parts = MethodParts(ScriptedLLM(["B"]), BM25Retriever.build(PARAGRAPHS), METHOD.as_run(config), "hotpotqa",
                            lambda: PARAGRAPHS)
        return {label: strategy.config for label, strategy in METHOD.build(parts).strategies.items()}
    fixed = strategies(AdaptiveRAGConfig())
    assert (fixed["B"].query, fixed["B"].admit_hits, fixed["A"].reader_stop, fixed["C"].reader_stop) == \
           ("no_wh_words", "collection", "line", "line")
    before = strategies(AdaptiveRAGConfig(strategy_options=copy.deepcopy(BEFORE_ISSUE_71)))
    assert (before["B"].query, before["B"].admit_hits, before["A"].reader_stop, before["C"].reader_stop) == \
           ("question", "all", "paragraph", "paragraph")
    assert strategies(AdaptiveRAGConfig(strategy_options={"oner": {"k": 9}}))["B"].k == 9
    assert "strategy_options" not in run_options(AdaptiveRAGConfig(strategy_options=copy.deepcopy(BEFORE_ISSUE_71)))
    assert run_options(AdaptiveRAGConfig())["strategy_options"] == {}
    with pytest.raises(ConfigError, match="'strategy_options': flare is not a strategy"):
        AdaptiveRAGConfig(strategy_options={"flare": {}})


def test_the_strategies_declared_settings_are_handed_in_and_refused_without_them() -> None:
    """Issue 74: with ``strategies: experiments`` the strategies take their declared settings for the dataset from
    the experiments the pipeline hands in (the methods never import hopkit.pipelines.experiments); without them, one line
    says how to give them."""
    from hopkit.pipelines.experiments import load_experiment

    no_demonstrations = {"demonstrations": None}  # their files are not at hand offline; the other settings are
    options = METHOD.as_run(AdaptiveRAGConfig(strategies="experiments", strategy_options={
        "nor": no_demonstrations, "oner": no_demonstrations, "ircot": no_demonstrations}))
    bare = MethodParts(ScriptedLLM(["B"]), BM25Retriever.build(PARAGRAPHS), options, "hotpotqa", lambda: PARAGRAPHS)
    with pytest.raises(ConfigError, match="none were handed in: build it through a pipeline, or give MethodParts "
                                          "experiments=hopkit.pipelines.experiments.load_experiment"):
        METHOD.build(bare)
    handed = MethodParts(ScriptedLLM(["B"]), BM25Retriever.build(PARAGRAPHS), options, "hotpotqa", lambda: PARAGRAPHS,
                         experiments=load_experiment)
    strategies = METHOD.build(handed).strategies
    declared = load_experiment("oner", "hotpotqa").config
    assert strategies["B"].config.reader.max_tokens == declared["reader"]["max_tokens"] == 32
    assert strategies["C"].config.reader_max_tokens == load_experiment("ircot", "hotpotqa").config["reader_max_tokens"]
