"""DRAGIN's prompts, laid out as the authors' ``AttnWeightRAG.inference`` lays them out: the exemplars,
each on its own line, then the test case and the text so far; after a retrieval, the retrieved
documents and "Answer in the same format as before." between the exemplars and the case."""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Sequence

import yaml

from hopkit.errors import ConfigError
from hopkit.methods.dragin.answer import ANSWER_FORMS, AnswerForm
from hopkit.records import Paragraph

EXEMPLARS_FILE = Path(__file__).with_name("exemplars.yaml")
#: the exemplar set a dataset without its own uses
FALLBACK_SET = "hotpotqa"


@dataclass(frozen=True)
class PromptSet:
    """One dataset's exemplars and templates (``exemplars.yaml``)."""

    name: str
    demo_template: str
    test_template: str
    output_template: str
    exemplars: tuple[tuple[str, str, str], ...]
    answers: AnswerForm = "span"

    def demonstrations(self, shots: int) -> str:
        """The first ``shots`` exemplars, each "Question: ...\\nAnswer: <cot> So the answer is <answer>." and a
        newline."""
        return "".join(self.demo_template.format(question=question) + " "
                       + self.output_template.format(cot=cot, answer=answer) + "\n"
                       for question, cot, answer in self.exemplars[:shots])

    def case(self, question: str, plain: bool = False) -> str:
        """The test case: the set's test template, or with ``plain`` the exemplars' own question layout."""
        return (self.demo_template if plain else self.test_template).format(question=question)


@cache
def _sets() -> dict[str, PromptSet]:
    raw = yaml.safe_load(EXEMPLARS_FILE.read_text(encoding="utf-8"))
    sets = {name: PromptSet(name, entry["demo_template"], entry["test_template"], entry["output_template"],
                            tuple((e["question"], e["cot"], e["answer"]) for e in entry["exemplars"]),
                            entry.get("answers", "span"))
            for name, entry in raw.items()}
    unknown = {name: s.answers for name, s in sets.items() if s.answers not in ANSWER_FORMS}
    if unknown:
        raise ConfigError(f"{EXEMPLARS_FILE.name}: answers must be one of {ANSWER_FORMS}, got {unknown}")
    return sets


def known_sets() -> frozenset[str]:
    """The names of the exemplar sets (the datasets the authors wrote exemplars for)."""
    return frozenset(_sets())


def prompt_set(name: str | None) -> PromptSet:
    """The exemplars named ``name`` (a dataset the authors wrote them for); HotpotQA's for ``None``.

    Raises:
        ConfigError: no exemplars of that name.
    """
    sets = _sets()
    chosen = name or FALLBACK_SET
    if chosen not in sets:
        raise ConfigError(f"DRAGIN option exemplars: no exemplars named {chosen!r} in {EXEMPLARS_FILE.name}; "
                          f"choose one of {sorted(sets)}")
    return sets[chosen]


def joined(*parts: str) -> str:
    """The non-empty parts joined by spaces (how the authors append the text so far to the case)."""
    return " ".join(part for part in parts if part)


def generation_prompt(demonstrations: str, case: str, text: str) -> str:
    return demonstrations + joined(case, text)


def retrieval_prompt(demonstrations: str, documents: Sequence[Paragraph], case: str, text: str, prefix: str) -> str:
    """The prompt after a retrieval; each document is its text alone, as the authors' Elasticsearch hit
    gives its ``txt`` field (its title searched, not shown)."""
    context = "".join(f"[{i}] {_one_line(p)}\n" for i, p in enumerate(documents, start=1))
    return (demonstrations + "Context:\n" + context + "Answer in the same format as before.\n"
            + joined(case, text, prefix.strip()))


def _one_line(paragraph: Paragraph) -> str:
    return " ".join(paragraph.text.split())


def check_shots(name: str, shots: int) -> None:
    """Raises ConfigError when the set has fewer than ``shots`` exemplars."""
    available = len(prompt_set(name).exemplars)
    if shots > available:
        raise ConfigError(f"DRAGIN option shots: {shots} asked for, but the {name!r} exemplars are {available}")
