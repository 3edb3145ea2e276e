"""No method sends the model a prompt that does not fit in its context window (issue 70).

Search-o1 lost a question to the backend's "the prompt has 4818 tokens but the context window is 4096"
after two searches: its context rule guarded the reasoning turn, not the Reason-in-Documents call. The
rule is one (:func:`hopkit.methods.prompting.check_fits`): no call is made whose prompt does not leave
its generation budget in the context; a method first leaves out what it can (demonstrations, the oldest
paragraphs), a loop whose next call would not fit ends there and answers from what it has (its trace
says ``context_full``), and a call it cannot do without fails the question with a ``ContextFullError``
(a failure a rerun repeats). Every method of the registry, in every configuration its options allow,
runs here against a model that never stops reasoning and searching and that refuses, as llama.cpp
does, any prompt as long as its context, at context sizes from one that holds little to one that
holds a few turns: each question is answered or fails with one of hopkit's errors, never with the
backend's, and no refused prompt was ever sent.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Sequence

import pytest

from hopkit.errors import ContextFullError, DETERMINISTIC_FAILURES, LLMError
from hopkit.llm.fake import ScriptedLLM
from hopkit.llm.meter import MeteredLLM
from hopkit.llm.protocol import Attention, Completion, Done, Scores, TokenScores
from hopkit.methods.search_o1 import SearchO1, SearchO1Config
from hopkit.records import Corpus, Paragraph
from hopkit.retrieval.bm25 import BM25Retriever
from hopkit.pipelines.runner import run_method
from hopkit.store.connection import DBConnection
from hopkit.store.records import RunSpec
from hopkit.store.store import Store
from hopkit.traces import collect_trace
from tests.methods.configurations import describe
from tests.methods.test_hostile_replies_every_method import (AnyCandidate, build, every_configuration,  # noqa: F401
                                                         no_downloads)
from tests.methods.test_method_contract import PARAGRAPHS, QUERIES

pytestmark = pytest.mark.unit

# A model that reasons on and searches in every family's markup, and never answers.
REASONING = "Ada Quill founded Velmora Ironworks and the Orl River flows past its yard in the north. "
SEARCHING = (REASONING * 3 + "Thought: I need more.\nFollow up: Who founded Velmora Ironworks?\n"
             "Action 1: Search[Velmora Ironworks]\n<search> Velmora Ironworks </search>\n"
             "<|begin_search_query|> Velmora Ironworks <|end_search_query|>\n"
             "<|begin_of_query|> Velmora Ironworks <|end_of_query|>\n[Query 1]: Who founded Velmora Ironworks?\n"
             "**Final Information**\n" + REASONING)
OVERFLOW = "but the context window is"


class SmallContextLLM(ScriptedLLM):
    """The scripted model with a context of ``context_length`` words that, as llama.cpp does, refuses a
    prompt of that many tokens or more (and records it in ``refused``)."""

    def __init__(self, context_length: int) -> None:
        super().__init__(lambda prompt: SEARCHING, context_length=context_length, chat=True, sampling=True,
                         streaming=True, token_scores=-0.01, entropies=0.5, scores=lambda prompt: AnyCandidate(-0.1))
        self.refused: list[int] = []

    def _check(self, prompt: str, extra: int = 0) -> None:
        size = self.count_tokens(prompt) + extra
        if size >= self.context_length:
            self.refused.append(size)
            raise LLMError(f"scripted: the prompt has {size} tokens {OVERFLOW} n_ctx={self.context_length}")

    def complete(self, prompt: str, *, stop: Sequence[str] = (), max_tokens: int = 256,
                 temperature: float = 0.0) -> Completion:
        self._check(prompt)
        return super().complete(prompt, stop=stop, max_tokens=max_tokens, temperature=temperature)

    def complete_until(self, prompt: str, done: Done, *, stop: Sequence[str] = (), max_tokens: int = 256,
                       temperature: float = 0.0) -> Completion:
        self._check(prompt)
        return super().complete_until(prompt, done, stop=stop, max_tokens=max_tokens, temperature=temperature)

    def score_tokens(self, prompt: str, continuation: str) -> TokenScores:
        self._check(prompt, self.count_tokens(continuation))
        return super().score_tokens(prompt, continuation)

    def score_continuations(self, prompt: str, candidates: Sequence[str]) -> Scores:
        self._check(prompt, 1)
        return super().score_continuations(prompt, candidates)

    def attend(self, text: str) -> Attention:
        self._check(text)
        return super().attend(text)


@pytest.mark.parametrize(("name", "values"), every_configuration())
def test_no_method_sends_a_prompt_longer_than_the_context(tmp_path: Path, name: str, values: dict[str, Any]) -> None:
    store = Store(DBConnection(f"sqlite:///{tmp_path / 'context.db'}").get_session_factory())
    store.add_corpus(Corpus("toy", PARAGRAPHS, QUERIES))
    for context in (96, 200, 400, 800, 1600):
        llm = SmallContextLLM(context)
        method = build(name, values, MeteredLLM(llm), BM25Retriever.build(PARAGRAPHS))
        spec = RunSpec(name=f"context-{name}-{context}", method=name, dataset="toy",
                       config={"context": context, **{k: repr(v) for k, v in values.items()}})
        outcome = run_method(method, QUERIES, store, spec, progress=False)
        for result in store.results(outcome.run_id):
            assert result.error is None or OVERFLOW not in result.error, (
                f"{name} ({describe(values)}), context {context}: {result.error[:300]}")
        assert llm.refused == [], (f"{name} ({describe(values)}) sent prompts of {llm.refused} tokens to a context "
                                   f"of {context}")


def test_a_context_full_failure_is_one_a_rerun_repeats() -> None:
    assert issubclass(ContextFullError, LLMError) and "ContextFullError" in DETERMINISTIC_FAILURES


def test_search_o1_ends_its_loop_when_the_reason_in_documents_prompt_does_not_fit() -> None:
    """The probe's case: the reasoning turn fits, the Reason-in-Documents prompt with the documents does
    not; the loop ends there (``context_full``) and the answer is forced instead of the backend refusing."""
    long_paragraphs = [Paragraph(p.id, p.title, " ".join([p.text] * 30)) for p in PARAGRAPHS]
    config = SearchO1Config(k=4, max_tokens=20, condense_tokens=20, answer_tokens=5)

    def model(prompt: str) -> str:
        if prompt.rstrip().endswith("\\boxed{"):
            return "Tarsk"
        return "Found.\n**Final Information**\nAda Quill." if "Web Page 1" in prompt else (
            "I need the founder. <|begin_search_query|> Velmora Ironworks <|end_search_query|>")

    roomy = ScriptedLLM(model, chat=True)
    SearchO1(roomy, BM25Retriever.build(long_paragraphs), config).generate(QUERIES[0])
    reasoning, documents = roomy.prompts[0], roomy.prompts[1]
    assert "Web Page 1" in documents and roomy.count_tokens(documents) > roomy.count_tokens(reasoning) + 100

    small = SmallContextLLM(roomy.count_tokens(documents))  # the reasoning fits, the documents do not
    small.script = model
    with collect_trace() as trace:
        result = SearchO1(small, BM25Retriever.build(long_paragraphs), config).generate(QUERIES[0])
    assert small.refused == []
    assert result.text == "Tarsk" and result.metadata.forced == "context_full"
    assert trace.steps[-1].kind == "extract" and not any("Web Page 1" in prompt for prompt in small.prompts)
    assert len(small.prompts) == 2  # the reasoning turn, then the forced answer
