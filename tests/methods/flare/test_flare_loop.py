"""FLARE-direct's loop (Jiang et al., 2023) over a real BM25 index, with a scripted model whose token
probabilities are scripted: a sure sentence is kept, an uncertain one is retrieved for with its
least sure tokens masked and written again over the new paragraphs."""

from __future__ import annotations

import math
import re

import pytest

from hopkit.errors import ConfigError, LLMError
from hopkit.llm.fake import ScriptedLLM
from hopkit.llm.protocol import TokenScores
from hopkit.methods.flare import METHOD, FLARE, FLAREConfig, FLAREOptions
from hopkit.methods.flare.method import masked_query
from hopkit.methods.flare.steps import FLARELookAhead, FLARERetrieve
from hopkit.records import Query
from hopkit.retrieval.bm25 import BM25Retriever
from hopkit.traces import collect_trace
from tests import fictional_corpus
from tests.chained import assert_chained

pytestmark = pytest.mark.unit

CORPUS = list(fictional_corpus.paragraphs(3))
QUESTION = Query("q1", "Where was the founder of Velmora Ironworks from?", ("Tarsk",))
SENTENCES = [" Velmora Ironworks was founded by Ada Quill.", " Ada Quill was from Tarsk.", " So the answer is: Tarsk."]
UNSURE = {"Quill.": 0.3, "from": 0.6}  # token (a word and what sticks to it) -> probability; others 0.95


def write(prompt: str) -> str:
    """The next sentence of the chain, then (cut off by the look-ahead's first sentence) more."""
    done = prompt.rsplit("\nA:", 1)[1]
    written = sum(1 for s in SENTENCES if s.strip() in done)
    return "".join(SENTENCES[written:]) if written < len(SENTENCES) else ""


def probabilities(prompt: str, continuation: str) -> list[tuple[str, float]]:
    return [(w, math.log(UNSURE.get(w.strip(), 0.95))) for w in re.findall(r"\s*\S+", continuation)]


def run(config: FLAREConfig = FLAREConfig(k=1)) -> tuple:
    llm = ScriptedLLM(write, token_scores=probabilities)
    with collect_trace() as trace:
        result = FLARE(llm, BM25Retriever.build(CORPUS), config).generate(QUESTION)
    assert_chained(trace.steps)  # each step follows the one before (parent=PREVIOUS)
    return result, llm, trace.steps


def test_a_sure_sentence_is_kept_and_an_uncertain_one_is_retrieved_for_masked_and_written_again() -> None:
    result, llm, steps = run(FLAREConfig(k=1, theta=0.8, beta=0.4))
    assert result.text == "Tarsk"
    assert result.metadata.sentences == tuple(s.strip() for s in SENTENCES)
    retrievals = [s.payload(FLARERetrieve) for s in steps if s.kind == "retrieve"]
    assert retrievals[0].query == QUESTION.text and retrievals[0].reason == "question"
    # sentence 1 has "Quill" at 0.3 < θ: retrieve with it, "Quill" (< β) masked out
    assert retrievals[1].reason == "uncertain_sentence" and retrievals[1].masked == (" Quill.",)
    assert retrievals[1].query == "Velmora Ironworks was founded by Ada"
    # sentence 2 has "from" at 0.6 < θ but >= β: retrieved for with nothing masked
    assert retrievals[2].query == "Ada Quill was from Tarsk." and retrievals[2].masked == ()
    looks = [s.payload(FLARELookAhead) for s in steps if s.kind == "reason"]
    assert [(look.uncertain, look.regenerated) for look in looks] == [
        (True, False), (False, True), (True, False), (False, True), (False, False)]
    assert steps[-1].kind == "extract"
    assert len(llm.prompts) == 5 and len(llm.scored) == 3  # 5 generations, 3 checks (regenerated: unchecked)
    assert all(prompt.rstrip().endswith(tail) for prompt, tail in zip(llm.prompts, [
        "A:", "A:", "Ada Quill.", "Ada Quill.", "from Tarsk."]))
    assert "Wikipedia Title: Ada Quill" in llm.prompts[3]  # the second look-ahead retrieved her page
    assert set(result.chunk_ids) >= {0, 1}


def test_with_theta_zero_nothing_is_uncertain_and_only_the_question_is_retrieved_for() -> None:
    result, llm, steps = run(FLAREConfig(k=1, theta=0.0))
    assert result.text == "Tarsk" and len(llm.prompts) == 3
    assert [s.payload(FLARERetrieve).reason for s in steps if s.kind == "retrieve"] == ["question"]


def test_the_sentence_limit_ends_the_loop() -> None:
    result, llm, _ = run(FLAREConfig(k=1, theta=0.0, max_sentences=1))
    assert len(llm.prompts) == 1 and result.metadata.sentences == (SENTENCES[0].strip(),)


def test_masking_removes_the_tokens_below_beta() -> None:
    scores = TokenScores(tokens=(" Ada", " Quill", " was", " born"), prompt_tokens=1, seconds=0.0,
                         logprobs=tuple(math.log(p) for p in (0.9, 0.2, 0.5, 0.39)))
    assert masked_query(scores, 0.4) == ("Ada was", (" Quill", " born"))
    assert masked_query(scores, 0.95) == ("", (" Ada", " Quill", " was", " born"))


def test_a_backend_without_token_probabilities_is_refused_when_built() -> None:
    with pytest.raises(LLMError, match="token_scoring.*needed by FLARE"):
        FLARE(ScriptedLLM(["x"]), BM25Retriever.build(CORPUS))


@pytest.mark.parametrize("field, value", [("theta", 1.5), ("beta", -0.1), ("k", 0), ("look_ahead_tokens", 0)])
def test_an_option_out_of_range_is_refused_naming_it(field: str, value: float) -> None:
    with pytest.raises(ConfigError, match=f"'{field}'"):
        FLAREConfig(**{field: value})


def test_the_defaults_are_the_authors_2wikimultihopqa_configuration() -> None:
    options = FLAREOptions()
    assert (options.k, options.theta, options.beta, options.look_ahead_tokens, options.shots) == (2, 0.8, 0.4, 64, 8)
    assert METHOD.warnings is not None and "zero-shot" in METHOD.warnings(options)[0]
