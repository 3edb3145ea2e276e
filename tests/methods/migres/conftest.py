"""Shared parts of the MIGRES tests: a tiny two-hop corpus and a model scripted per module.

Exposed through the ``kit`` fixture (the test modules are imported with
``--import-mode=importlib``, so they cannot import a helper module).
"""

from __future__ import annotations

import re
from types import SimpleNamespace
from typing import Callable, Mapping

import pytest

from hopkit.judges.scripted import ScriptedEntailment, ScriptedRelevance
from hopkit.llm.fake import ScriptedLLM
from hopkit.methods.migres.method import MIGRES, MIGRESConfig
from hopkit.methods.migres import prompts
from hopkit.records import Paragraph, Query
from hopkit.retrieval.bm25 import BM25Retriever

IRONWORKS = Paragraph(10, "Velmora Ironworks", "Velmora Ironworks was founded by Ada Quill in 1871.")
ADA = Paragraph(11, "Ada Quill", "Ada Quill was an engineer born in Tarsk. She later moved to Brill.")
TARSK = Paragraph(12, "Tarsk", "Tarsk is a port city on the northern coast.")
BRIDGE = Paragraph(13, "Lumen Bridge", "The Lumen Bridge crosses the river at Tarsk.")
CORPUS = (IRONWORKS, ADA, TARSK, BRIDGE)
QUESTION = Query("q1", "Where was the founder of Velmora Ironworks born?", ("Tarsk",))
FOLLOW_UP = "Where was Ada Quill born?"

UNANSWERABLE = ('{"answer": {"text": "unanswerable", "confidence": 1}, "explanation": "The birthplace is not given.", '
                '"missing_information": "Where Ada Quill was born"}')
TARSK_ANSWER = '{"answer": {"text": "Tarsk", "confidence": 5}, "explanation": "She was born in Tarsk.", ' \
               '"missing_information": ""}'
FOUNDED = '{"useful_information": [{"info": "Velmora Ironworks was founded by Ada Quill", "support_passages": [0]}]}'
BORN = '{"useful_information": [{"info": "Ada Quill was born in Tarsk", "support_passages": [0]}]}'

Handler = Callable[[str], str]


def module_of(prompt: str) -> str:
    """Which MIGRES module a prompt is for, from its fixed instruction."""
    for yes_no in (False, True):
        if prompt.startswith(prompts.main_instruction(yes_no, final=True)):
            return "final_main"
        if prompt.startswith(prompts.main_instruction(yes_no, final=False)):
            return "main"
    for module, instruction in (("query", prompts.QUERY_INSTRUCTION), ("leaf", prompts.LEAF_INSTRUCTION),
                                ("knowledge", prompts.KNOWLEDGE_INSTRUCTION)):
        if prompt.startswith(instruction):
            return module
    raise AssertionError(f"not a MIGRES prompt: {prompt[:80]!r}")


def instance(prompt: str) -> str:
    """The question-specific part of a zero-shot prompt (after the instruction's blank line)."""
    return prompt.split("\n\n", 1)[1]


class ModuleModel:
    """A scripted model answering each MIGRES module with its own handler of the prompt's instance."""

    def __init__(self, handlers: Mapping[str, Handler]) -> None:
        self.handlers = dict(handlers)
        self.calls: list[tuple[str, str]] = []  # (module, instance)
        self.llm = ScriptedLLM(self.respond)

    def respond(self, prompt: str) -> str:
        module = module_of(prompt)
        self.calls.append((module, instance(prompt)))
        if module not in self.handlers:
            raise AssertionError(f"the test did not script the {module} module")
        return self.handlers[module](instance(prompt))

    def modules(self) -> list[str]:
        return [module for module, _ in self.calls]

    def prompts_of(self, module: str) -> list[str]:
        return [text for name, text in self.calls if name == module]


def two_hop_handlers() -> dict[str, Handler]:
    """The model of a question answered in two hops: the founder first, then her birthplace."""
    def main(text: str) -> str:
        return TARSK_ANSWER if "born in Tarsk" in text else UNANSWERABLE

    def leaf(text: str) -> str:
        return BORN if "born in Tarsk" in text else FOUNDED

    return {"main": main, "final_main": main, "leaf": leaf, "query": lambda text: FOLLOW_UP}


def relevance_by_title(relevant: Mapping[str, tuple[str, ...]], *, high: float = 5.0,
                       low: float = -2.0) -> ScriptedRelevance:
    """A reranker scoring ``high`` the passages (and sentences) titled as listed for their query."""
    def score(query: str, text: str) -> float:
        title = re.match(r"\(Title: (.*?)\)", text)
        return high if title is not None and title.group(1) in relevant.get(query, ()) else low

    return ScriptedRelevance(score)


def two_hop_reranker() -> ScriptedRelevance:
    return relevance_by_title({QUESTION.text: ("Velmora Ironworks",), FOLLOW_UP: ("Ada Quill",)})


def build(model: ModuleModel, reranker: ScriptedRelevance | None = None, entailment: float = 0.9,
          corpus: tuple[Paragraph, ...] = CORPUS, **options: object) -> MIGRES:
    """MIGRES over a real BM25 index of ``corpus`` (k1=0.9, b=0.4), with scripted judges."""
    config = MIGRESConfig(**{"hits_per_query": 4, **options})  # type: ignore[arg-type]
    return MIGRES(model.llm, BM25Retriever.build(corpus, k1=0.9, b=0.4), config,
                  reranker=reranker if reranker is not None else two_hop_reranker(),
                  nli=ScriptedEntailment(lambda premise, hypothesis: entailment))


@pytest.fixture
def kit() -> SimpleNamespace:
    return SimpleNamespace(
        IRONWORKS=IRONWORKS, ADA=ADA, TARSK=TARSK, BRIDGE=BRIDGE, CORPUS=CORPUS, QUESTION=QUESTION,
        FOLLOW_UP=FOLLOW_UP, UNANSWERABLE=UNANSWERABLE, TARSK_ANSWER=TARSK_ANSWER, FOUNDED=FOUNDED, BORN=BORN,
        ModuleModel=ModuleModel, two_hop_handlers=two_hop_handlers, relevance_by_title=relevance_by_title,
        two_hop_reranker=two_hop_reranker, build=build, instance=instance, module_of=module_of)
