"""The dedicated-model judges' real loading and scoring code, on tiny BERT models built here.

Each test saves a randomly initialised two-layer BERT (hidden size 16, a WordPiece
vocabulary of a few dozen words) with ``save_pretrained`` into a temporary folder, and
loads it by that path through hopkit's factory, as a user would load a model by name.
The outputs are checked against a forward pass of the same weights written out here,
one pair at a time, so batching, padding, pair order, label choice and span mapping
are all exercised. Skipped when torch or transformers (the ``judges`` extra) is missing.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from hopkit.errors import ConfigError
from hopkit.judges import (CrossEncoderRelevance, ExtractiveReader, NLIEntailment, answer_judge, entailment_judge,
                           relevance_judge)
from hopkit.usage import track_usage

torch = pytest.importorskip("torch")
transformers = pytest.importorskip("transformers")

pytestmark = [pytest.mark.unit, pytest.mark.slow]

WORDS = ("the a of is was in and who what which capital city largest country france paris berlin germany "
         "river town market sells wool cheese fish avel on . , ?").split()
QUESTION = "what is the capital of france?"
PASSAGES = ["paris is the capital and largest city of france.",
            "the market of avel sells wool, cheese and fish.",
            "berlin is the capital of germany, a country on the river."]


def save_tiny_bert(folder: Path, head: str, **config: Any) -> Path:
    """A random tiny BERT with the head ``head`` (e.g. BertForQuestionAnswering), saved in ``folder``."""
    folder.mkdir()
    vocab = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", *WORDS]
    (folder / "vocab.txt").write_text("\n".join(vocab) + "\n", encoding="utf-8")
    settings = transformers.BertConfig(vocab_size=len(vocab), hidden_size=16, num_hidden_layers=2,
                                       num_attention_heads=2, intermediate_size=32, max_position_embeddings=128,
                                       **config)
    torch.manual_seed(0)
    getattr(transformers, head)(settings).save_pretrained(folder)
    transformers.AutoTokenizer.from_pretrained(folder).save_pretrained(folder)  # vocab.txt -> tokenizer files
    return folder


def forward(folder: Path, head: str, first: str, second: str) -> Any:
    """One pair through the saved model, without hopkit (the reference)."""
    tokenizer = transformers.AutoTokenizer.from_pretrained(folder)
    model = getattr(transformers, head).from_pretrained(folder).eval()
    encoded = tokenizer(first, second, return_tensors="pt", return_offsets_mapping=True)
    offsets = encoded.pop("offset_mapping")[0].tolist()
    with torch.no_grad():
        return model(**encoded), encoded.sequence_ids(0), offsets


def test_nli_gives_the_probability_of_the_label_named_entailment(tmp_path: Path) -> None:
    labels = {0: "contradiction", 1: "neutral", 2: "entailment"}
    folder = save_tiny_bert(tmp_path / "nli", "BertForSequenceClassification", num_labels=3, id2label=labels,
                            label2id={name: index for index, name in labels.items()})
    judge = entailment_judge({"kind": "nli", "model": str(folder), "device": "cpu", "batch_size": 2})
    assert isinstance(judge, NLIEntailment) and judge.entailment_class == 2
    pairs = [(passage, "paris is in france.") for passage in PASSAGES]
    expected = [forward(folder, "AutoModelForSequenceClassification", premise, hypothesis)[0].logits
                .softmax(dim=-1)[0, 2].item() for premise, hypothesis in pairs]
    assert judge.entailment(pairs) == pytest.approx(expected, abs=1e-5)  # batches of 2, padded
    assert judge.entailment([]) == []


def test_an_nli_model_without_an_entailment_label_is_refused_or_told_which(tmp_path: Path) -> None:
    folder = save_tiny_bert(tmp_path / "plain", "BertForSequenceClassification", num_labels=2)
    with pytest.raises(ConfigError, match=r"expected one label starting with 'entail' .*'LABEL_0'"):
        entailment_judge({"kind": "nli", "model": str(folder)})
    judge = entailment_judge({"kind": "nli", "model": str(folder), "label": "LABEL_1"})
    assert isinstance(judge, NLIEntailment) and judge.entailment_class == 1


def test_the_cross_encoder_scores_query_and_text_together(tmp_path: Path) -> None:
    pytest.importorskip("sentence_transformers")
    folder = save_tiny_bert(tmp_path / "reranker", "BertForSequenceClassification", num_labels=1)
    judge = relevance_judge({"kind": "cross-encoder", "model": str(folder), "device": "cpu", "batch_size": 2})
    assert isinstance(judge, CrossEncoderRelevance) and judge.judge_id == f"cross-encoder:{folder}"
    logits = [forward(folder, "AutoModelForSequenceClassification", QUESTION, text)[0].logits[0, 0].item()
              for text in PASSAGES]
    # saved without an activation, a one-label model's scores go through a sigmoid in sentence-transformers
    assert judge.relevance(QUESTION, PASSAGES) == pytest.approx([1 / (1 + math.exp(-x)) for x in logits], abs=1e-5)
    assert judge.relevance(QUESTION, []) == []


def test_a_classifier_is_not_a_reranker(tmp_path: Path) -> None:
    pytest.importorskip("sentence_transformers")
    folder = save_tiny_bert(tmp_path / "classifier", "BertForSequenceClassification", num_labels=3)
    with pytest.raises(ConfigError, match="gives 3 scores per pair; a relevance judge needs a cross-encoder with "
                                          "one output"):
        relevance_judge({"kind": "cross-encoder", "model": str(folder), "device": "cpu"}).relevance(QUESTION, ["x"])


def test_the_reader_gives_the_best_passage_span_and_its_margin_over_no_answer(tmp_path: Path) -> None:
    folder = save_tiny_bert(tmp_path / "reader", "BertForQuestionAnswering")
    judge = answer_judge({"kind": "extractive", "model": str(folder), "device": "cpu", "batch_size": 2,
                          "max_answer_tokens": 4})
    assert isinstance(judge, ExtractiveReader)
    answers = judge.answer([(QUESTION, passage) for passage in PASSAGES])
    for passage, answer in zip(PASSAGES, answers):
        output, sequence_ids, offsets = forward(folder, "AutoModelForQuestionAnswering", QUESTION, passage)
        start, end = output.start_logits[0].numpy(), output.end_logits[0].numpy()
        spans = [(start[i] + end[j], i, j) for i in range(len(start)) for j in range(i, min(i + 4, len(end)))
                 if sequence_ids[i] == 1 and sequence_ids[j] == 1]
        score, i, j = max(spans)
        assert answer.text == passage[offsets[i][0]:offsets[j][1]] and answer.text
        assert answer.start == offsets[i][0] and passage[answer.start:].startswith(answer.text)
        assert answer.confidence == pytest.approx(score - (start[0] + end[0]), abs=1e-4)


def test_a_long_passage_is_cut_and_still_read(tmp_path: Path) -> None:
    folder = save_tiny_bert(tmp_path / "reader", "BertForQuestionAnswering")
    judge = answer_judge({"kind": "extractive", "model": str(folder), "device": "cpu", "max_length": 24})
    long_passage = " ".join(PASSAGES * 10)
    [answer] = judge.answer([(QUESTION, long_passage)])
    assert answer.text and long_passage[answer.start:].startswith(answer.text)
    assert np.isfinite(answer.confidence)


def test_dedicated_judges_are_timed_under_their_components(tmp_path: Path) -> None:
    folder = save_tiny_bert(tmp_path / "nli", "BertForSequenceClassification", num_labels=3,
                            id2label={0: "ENTAILMENT", 1: "NEUTRAL", 2: "CONTRADICTION"})
    judge = entailment_judge({"kind": "nli", "model": str(folder), "device": "cpu"})
    with track_usage() as usage:
        judge.entailment([("a", "b"), ("c", "d")])
    assert usage.calls("judge:entailment") == 1 and usage.seconds("judge:entailment") > 0.0


def test_a_model_that_is_not_there_is_named(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match=r"the NLI entailment judge: cannot load '.*missing'.*save_pretrained"):
        entailment_judge({"kind": "nli", "model": str(tmp_path / "missing")})
