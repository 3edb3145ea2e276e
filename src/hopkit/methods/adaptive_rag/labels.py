"""Adaptive-RAG's query complexity labels, and the silver labels a classifier is trained on.

A question's label names the simplest strategy that answers it: ``A`` no retrieval (NoR), ``B``
single-step retrieval (OneR), ``C`` multi-step retrieval (IRCoT). The silver labels come from runs
of the three strategies, as Jeong et al. make them (starsuzi/Adaptive-RAG 0c88670,
``classifier/preprocess/preprocess_utils.py``, ``label_complexity``): a question answered correctly
by a strategy takes the simplest such strategy's label.

A question none answers is where hopkit differs. The authors drop it from the silver set
(``label_complexity``, l. 145-146) and add a separate inductive-bias set: the first 400 training
questions of each dataset, labelled by the dataset's kind (``B`` single-hop, ``C`` multi-hop;
``preprocess_binary_train.py`` with ``save_inductive_bias_*``), merged by
``concat_and_save_binary_silver`` (the kind-labelled questions not in the silver set, then the silver
set). hopkit's samples have no training split apart from the questions the silver labels come from,
so :func:`silver_labels` gives an unanswered question its dataset's kind inside the silver set, which
is what the authors' merge gives when the kind-labelled set is drawn from those same questions; the
kind-labelled part is then the unanswered questions, not 400 others per dataset
(docs/methods/adaptive-rag.md, "silver labels").
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final, Literal, Mapping, Sequence

Label = Literal["A", "B", "C"]
LABELS: Final[tuple[Label, ...]] = ("A", "B", "C")
#: The strategy each label routes to, by its method name.
STRATEGIES: Final[dict[str, str]] = {"A": "nor", "B": "oner", "C": "ircot"}
#: The datasets whose questions need one paragraph; any other is taken for multi-hop.
SINGLE_HOP: Final = frozenset({"nq", "natural_questions", "triviaqa", "trivia", "squad", "popqa"})


@dataclass(frozen=True)
class SilverExample:
    """One training question: its text, its label and where the label came from (``answered``: a
    strategy answered it; ``dataset``: none did, its dataset's kind)."""

    query_id: str
    question: str
    label: Label
    source: Literal["answered", "dataset"]
    dataset: str


def dataset_kind(dataset: str) -> Label:
    """The label of a question no strategy answered: ``B`` on a single-hop dataset, else ``C``."""
    return "B" if dataset.lower() in SINGLE_HOP else "C"


def silver_labels(dataset: str, questions: Mapping[str, str],
                  correct: Mapping[Label, Sequence[str]]) -> list[SilverExample]:
    """The silver label of each question (``questions``: id to text) from the ids each strategy
    answered correctly (``correct``: label to ids), in the questions' order."""
    answered = {label: set(correct.get(label, ())) for label in LABELS}
    examples = []
    for query_id, text in questions.items():
        simplest = next((label for label in LABELS if query_id in answered[label]), None)
        examples.append(SilverExample(query_id, text, simplest or dataset_kind(dataset),
                                      "answered" if simplest else "dataset", dataset))
    return examples
