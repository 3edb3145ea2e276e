"""ALCE's prompts (Gao et al., 2023, "Enabling Large Language Models to Generate Text with Citations";
github.com/princeton-nlp/ALCE), verbatim: the answer instruction and layout of
``prompts/asqa_default.json`` (zero-shot: no demonstrations), and the summary and extraction
prompts of ``tools/gen_summary.py``."""

from __future__ import annotations

import re
from typing import Literal, Sequence

from hopkit.records import Paragraph

#: ALCE's test of an irrelevant summary (utils.get_shorter_text), or hopkit's before issue 71's second review
IrrelevantRule = Literal["anywhere", "starts"]

INSTRUCTION = (
    "Instruction: Write an accurate, engaging, and concise answer for the given question using only the provided "
    "search results (some of which might be irrelevant) and cite them properly. Use an unbiased and journalistic "
    "tone. Always cite for any factual claim. When citing several search results, use [1][2][3]. Cite at least one "
    "document and at most three documents in each sentence. If multiple documents support the sentence, only cite a "
    "minimum sufficient subset of the documents."
)

SUMMARY_SYSTEM = ("You are a helpful assistant that summarizes the following documents with respect to questions of "
                  "interest.")
SUMMARY_USER = (
    "Summarize the following document within 50 words with the question of interest \"{question}\" Return "
    "\"irrelevant\" if the document is irrelevant to the question. Try to keep all the important dates, numbers, and "
    "names.\n\nTitle: {title}\nText: {text}\nSummary:"
)
EXTRACTION_SYSTEM = "You are a helpful assistant that extracts answers to questions from given documents."
EXTRACTION_USER = (
    "Given the follow passage and the question \"{question}\", extract a useful span from the passage that can answer "
    "the question. Resolve all the coreference issues to make the extracted span understandable standalone. If the "
    "passage is not helpful for answering the question, return \"irrelevant\".\n\nTitle: {title}\nText: {text}\n"
    "Extracted span:"
)

_CITATION = re.compile(r"\s*\[\d+\]")


def documents(paragraphs: Sequence[Paragraph], texts: Sequence[str]) -> str:
    """ALCE's ``doc_prompt`` for each document, numbered from 1: ``Document [i](Title: T): P``."""
    return "".join(f"Document [{i}](Title: {p.title}): {text}\n"
                   for i, (p, text) in enumerate(zip(paragraphs, texts), 1))


def answer_prompt(question: str, paragraphs: Sequence[Paragraph], texts: Sequence[str]) -> str:
    """ALCE's ``demo_prompt`` for the test question, zero-shot: instruction, question, documents, "Answer:"."""
    return f"{INSTRUCTION}\n\nQuestion: {' '.join(question.split())}\n\n{documents(paragraphs, texts)}\nAnswer:"


def without_citations(text: str) -> str:
    """The answer without its ``[n]`` citation marks."""
    return " ".join(_CITATION.sub("", text).split())


def is_irrelevant(text: str, rule: IrrelevantRule = "anywhere") -> bool:
    """Whether ALCE drops a document for its summary or extraction: "anywhere", it holds "irrelevant" or
    "Irrelevant" (``utils.get_shorter_text``; an empty one is kept); "starts", it is empty or begins with
    the word, quotes and case aside (hopkit's rule before issue 71's second review)."""
    if rule == "anywhere":
        return "irrelevant" in text or "Irrelevant" in text
    return not text.strip() or text.strip().strip("\"'").lower().startswith("irrelevant")
