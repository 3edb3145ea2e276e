"""Adaptive-RAG's silver labels (the simplest strategy that answers, else the dataset's kind) and the
light classifier trained on them: it learns, saves, loads, and a wrong file is refused by name."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from hopkit.errors import ConfigError
from hopkit.methods.adaptive_rag.labels import LABELS, silver_labels
from hopkit.methods.adaptive_rag.trained import load_classifier, train

pytestmark = pytest.mark.unit


def test_the_simplest_strategy_that_answers_labels_a_question_and_none_answering_takes_the_datasets_kind() -> None:
    questions = {"q1": "Who wrote Hamlet?", "q2": "Where is Tarsk?", "q3": "Who founded the firm that built X?",
                 "q4": "Where was the founder of Y born?"}
    correct = {"A": ["q1"], "B": ["q1", "q2"], "C": ["q1", "q2", "q3"]}
    multi = silver_labels("hotpotqa", questions, correct)
    assert [(e.query_id, e.label, e.source) for e in multi] == [
        ("q1", "A", "answered"), ("q2", "B", "answered"), ("q3", "C", "answered"), ("q4", "C", "dataset")]
    assert silver_labels("nq", {"q4": "Where was the founder of Y born?"}, {})[0].label == "B"



@pytest.mark.parametrize("dataset", ["hotpotqa", "nq"])
def test_the_authors_merge_with_a_kind_labelled_set_of_the_same_questions_gives_the_silver_labels(dataset: str) -> None:
    """starsuzi/Adaptive-RAG 0c88670: label_complexity drops a question no strategy answers (l. 145-146) and
    concat_and_save_binary_silver adds the kind-labelled set minus the silver ids; hopkit's samples have no
    other questions to draw that set from, and drawn from the silver questions it gives silver_labels' labels."""
    questions = {f"q{i}": f"Question {i}?" for i in range(8)}
    correct = {"A": ["q0", "q5"], "B": ["q1", "q5"], "C": ["q2", "q3"]}
    silver = {}  # label_complexity: C, overwritten by B, then A; unanswered questions dropped
    for query_id in questions:
        for label in ("C", "B", "A"):
            if query_id in correct[label]:
                silver[query_id] = label
    kind = "B" if dataset == "nq" else "C"  # save_inductive_bias_*: the dataset's kind for every question
    binary = {query_id: kind for query_id in questions}
    merged = {**{q: label for q, label in binary.items() if q not in silver}, **silver}
    assert {e.query_id: e.label for e in silver_labels(dataset, questions, correct)} == merged


SINGLE = [f"Who wrote the novel {name}?" for name in ("Emma", "Ulysses", "Dracula", "Rebecca", "Beloved", "Ivanhoe")]
MULTI = [f"Where was the founder of the company that made the {thing} born?"
         for thing in ("Walkman", "Beetle", "Model T", "Game Boy", "Kindle", "Trabant")]


def test_the_light_classifier_learns_its_training_questions_and_loads_as_saved(tmp_path: Path) -> None:
    classifier = train(SINGLE + MULTI, ["B"] * 6 + ["C"] * 6, LABELS)
    assert [classifier.classify(q) for q in SINGLE + MULTI] == ["B"] * 6 + ["C"] * 6
    assert classifier.classify("Where was the founder of the company that made the iPod born?") == "C"
    path = tmp_path / "router.npz"
    classifier.save(path)
    loaded = load_classifier(path, LABELS)
    assert loaded.probabilities(MULTI[0]) == pytest.approx(classifier.probabilities(MULTI[0]))
    again = tmp_path / "again.npz"
    loaded.save(again)
    assert again.read_bytes() == path.read_bytes()  # a routed run's id holds the file's digest


def test_a_missing_foreign_or_broken_classifier_file_is_refused_by_name(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="no classifier file there"):
        load_classifier(tmp_path / "none.npz", LABELS)
    path = tmp_path / "two.npz"
    train(SINGLE + MULTI, ["B"] * 6 + ["C"] * 6, ("B", "C")).save(path)
    with pytest.raises(ConfigError, match=r"trained for the labels \['B', 'C'\], not \['A', 'B', 'C'\]"):
        load_classifier(path, LABELS)
    garbage = tmp_path / "garbage.npz"
    garbage.write_bytes(b"not a numpy file")
    with pytest.raises(ConfigError, match="garbage.npz: not an Adaptive-RAG classifier file"):
        load_classifier(garbage, LABELS)
    other = tmp_path / "other.npz"
    with open(other, "wb") as out:
        np.savez(out, kind=np.array("something else"), version=np.array(1), labels=np.array(LABELS),
                 weights=np.zeros((3, 4)), bias=np.zeros(3))
    with pytest.raises(ConfigError, match="'something else' file"):
        load_classifier(other, LABELS)
    nan = tmp_path / "nan.npz"
    with open(nan, "wb") as out:
        np.savez(out, kind=np.array("hopkit-adaptive-rag-classifier"), version=np.array(1), labels=np.array(LABELS),
                 weights=np.full((3, 4), np.nan), bias=np.zeros(3))
    with pytest.raises(ConfigError, match="not finite"):
        load_classifier(nan, LABELS)


def test_training_refuses_labels_outside_the_set() -> None:
    with pytest.raises(ConfigError, match=r"\['D'\] are not in the label set"):
        train(["Who?"], ["D"], LABELS)
