"""RERANK's choice among sampled answers, as ALCE's ``tools/rerank_outputs.py`` makes it (Gao et al., 2023):
each answer's citation recall, and the first answer with the highest one.

A sentence counts as supported when it cites at least one document, every citation names a document of
the prompt, and all the documents together (not only the cited ones: so the authors' code does) entail
the sentence without its marks. An answer's recall is its supported sentences over its sentences.
"""

from __future__ import annotations

import re
from typing import Sequence

from hopkit.judges.protocol import ENTAILED, EntailmentJudge
from hopkit.judges.sentences import SentenceSplitter
from hopkit.methods.alce.prompts import without_citations

# ALCE counts "[n" as a citation even when its bracket is not closed.
_CITED = re.compile(r"\[(\d+)")
# A citation's number is model text: one longer than this names no document of any prompt (and Python
# refuses to read a number of more than 4,300 digits), so it is an invalid citation, read without int().
_MAX_CITATION_DIGITS = 6


def citation_recall(answer: str, documents: Sequence[tuple[str, str]], judge: EntailmentJudge,
                    splitter: SentenceSplitter) -> float:
    """The share of the answer's sentences that cite valid documents and that the documents entail.

    Args:
        answer: the answer with its ``[n]`` marks.
        documents: the prompt's documents as (title, text), numbered from 1.
        judge: the entailment judge (ALCE's is the TRUE NLI model).
        splitter: cuts the answer into sentences.

    Returns:
        A recall in [0, 1]; 0.0 for an answer without sentences.
    """
    sentences = splitter.split(answer)
    if not sentences:
        return 0.0
    premise = "\n".join(f"Title: {title}\n{text}" for title, text in documents)
    checked = [without_citations(sentence) for sentence in sentences if _cites_valid(sentence, len(documents))]
    checked = [sentence for sentence in checked if sentence]
    if not checked:
        return 0.0
    supported = sum(1 for value in judge.entailment([(premise, sentence) for sentence in checked])
                    if value >= ENTAILED)
    return supported / len(sentences)


def best_sample(recalls: Sequence[float]) -> int | None:
    """The first sample with the highest recall, or ``None`` when none is above 0 (ALCE then answers "")."""
    best, best_recall = None, 0.0
    for index, recall in enumerate(recalls):
        if recall > best_recall:
            best, best_recall = index, recall
    return best


def _cites_valid(sentence: str, documents: int) -> bool:
    cited = _CITED.findall(sentence)
    return bool(cited) and all(len(number) <= _MAX_CITATION_DIGITS and 1 <= int(number) <= documents
                               for number in cited)
