"""The query complexity classifiers a router asks: one the user trained (``hopkit train-router``), or a
prompted LLM for users without training data. Both return a label of :data:`LABELS` and what it
rests on; a model's reply is untrusted text, read for its first label letter."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Protocol

from hopkit.llm.protocol import LLM
from hopkit.methods.adaptive_rag.labels import LABELS, Label
from hopkit.methods.adaptive_rag.trained import load_classifier
from hopkit.methods.prompting import fitted
from hopkit.usage import ModelCallParts

#: The parts of adaptive-rag that call the model, each a column of the cost tables (``adaptive-rag:<part>``).
PARTS = ModelCallParts("adaptive-rag", ("classify",))

PROMPT = """Decide how much retrieval a question needs before it can be answered.
A: none; the answer is common knowledge.
B: one look-up; a single document holds the answer.
C: several look-ups, each found from the one before (a multi-hop question).
Reply with the letter only.

Question: Who wrote the novel Emma?
Answer: B

Question: What is the capital of France?
Answer: A

Question: Where was the founder of the company that made the Walkman born?
Answer: C

Question: {question}
Answer:"""
_LETTER = re.compile(r"\b([ABC])\b")


@dataclass(frozen=True)
class Routing:
    """A classifier's decision: the label, whether it was read from the classifier (False: the reply
    held none, the fallback was taken), the scores per label (a trained classifier) and the reply (a
    prompted one)."""

    label: Label
    readable: bool = True
    scores: dict[str, float] | None = None
    reply: str | None = None


class Classifier(Protocol):
    def classify(self, question: str) -> Routing: ...


class PromptedClassifier:
    """The run's model asked which label a question needs (three examples, then the question)."""

    def __init__(self, llm: LLM, fallback: Label = "C") -> None:
        self.llm = llm
        self.fallback = fallback

    def classify(self, question: str) -> Routing:
        prompt = fitted(self.llm, PROMPT.replace("{question}", question.strip()), 4)
        with PARTS.call("classify"):
            reply = self.llm.complete(prompt, stop=["\n"], max_tokens=4, temperature=0.0).text
        found = _LETTER.search(reply.upper())
        if found is None:
            return Routing(self.fallback, readable=False, reply=reply)
        return Routing(found.group(1), reply=reply)  # type: ignore[arg-type]


class FileClassifier:
    """A classifier trained by ``hopkit train-router`` and saved as a file.

    Raises:
        ConfigError: the file is missing, not a classifier, or trained for other labels (at construction).
    """

    def __init__(self, path: str) -> None:
        self.path = path
        self.trained = load_classifier(path, LABELS)

    def classify(self, question: str) -> Routing:
        scores = self.trained.probabilities(question)
        return Routing(self.trained.label_of(scores), scores={name: round(value, 6) for name, value in scores.items()})
