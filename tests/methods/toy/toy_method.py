"""The toy method's package, written into a temporary folder by the toy-method test.

It is the example of docs/adding-a-method.md: a package that declares its options, its
loop, its report template and its registry entry, and an entry point that registers it.
"""

PACKAGE = '''\
"""Toy: retrieve K paragraphs with the question, then ask the model for the answer."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from hopkit.methods.registry import MethodEntry, MethodParts
from hopkit.options import PositiveInt, check_fields
from hopkit.parsing.answers import clean_direct_answer
from hopkit.records import GenerationResult, Query
from hopkit.traces.payload import Payload, at, record
from hopkit.traces.summary import Summary
from hopkit.usage import ModelCallParts


#: The parts of the toy that call the model: each is a column of the cost tables (``toy:read``).
PARTS = ModelCallParts("toy", ("read",))


@dataclass(frozen=True)
class ToyOptions:
    """Toy's options.

    Attributes:
        k: paragraphs retrieved with the question.
        cue: what the prompt ends with.
    """

    k: PositiveInt = 2
    cue: str = "Answer:"

    def __post_init__(self) -> None:
        check_fields(self, "Toy option")


@dataclass(frozen=True, kw_only=True)
class ToyRetrieve(Payload):
    """The retrieval (a): the question as the query; the hits are the step's paragraph_ids."""

    kind = "retrieve"
    query: str = at("input")


@dataclass(frozen=True, kw_only=True)
class ToyRead(Payload):
    """The model's answer (b) to the question."""

    kind = "read"
    question: str = at("input")
    answer: str = at("output")


@dataclass(frozen=True, kw_only=True)
class ToySummary(Summary):
    """What a result stores beside its trace: how many paragraphs the model read."""

    paragraphs: int


class Toy:
    """(a) retrieve K paragraphs with the question; (b) ask the model."""

    name = "toy"

    def __init__(self, parts: MethodParts) -> None:
        self.llm, self.retriever, self.options = parts.llm, parts.retriever, parts.options

    def generate(self, query: Query) -> GenerationResult:
        hits = self.retriever.retrieve(query.text, self.options.k)                          # (a)
        record(ToyRetrieve(query=query.text), hits=hits)
        context = "\\n".join(h.paragraph.text for h in hits)
        with PARTS.call("read"):                                                            # (b)
            reply = self.llm.complete(f"{context}\\nQ: {query.text}\\n{self.options.cue}", max_tokens=16)
        answer = clean_direct_answer(reply.text)
        record(ToyRead(question=query.text, answer=answer), llm_calls=1)
        return GenerationResult(text=answer, chunk_ids=tuple(h.paragraph.id for h in hits),
                                metadata=ToySummary(paragraphs=len(hits)))


METHOD = MethodEntry(name="toy", title="Toy", options=ToyOptions, build=Toy, retrieves=True, top_k="k",
                     template=Path(__file__).with_name("report.html.j2"),
                     summary="retrieves K paragraphs, then asks the model", payloads=(ToyRetrieve, ToyRead),
                     summary_type=ToySummary, parts=PARTS)
'''

TEMPLATE = '''\
{% import "trace/common.html.j2" as common %}
{% macro read(s, ctx) -%}
<p class="toy-read">the toy read: {{ s.payload.answer }}</p>
{%- endmacro %}
'''

ENTRY_POINTS = '''\
[hopkit.methods]
toy = toy_method:METHOD
'''

METADATA = '''\
Metadata-Version: 2.1
Name: toy-method
Version: 0.1
'''
