"""MIGRES's prompts (Wang et al. 2024), verbatim from the paper, and how they are laid out.

Sources, per constant:

- ``MAIN_INSTRUCTION``, ``QUERY_INSTRUCTION``, ``LEAF_INSTRUCTION``: Table 17 (Appendix G,
  the "Main Instruction", "Query Instruction" and "Leaf Instruction" of Case 1).
- ``YES_NO_SENTENCE``: the sentence Table 17's caption says is added to the Main
  Module's instruction for StrategyQA.
- ``KNOWLEDGE_INSTRUCTION``: Table 15 (Appendix E, "Prompt for knowledge prompting"),
  typo included ("Generation relevant information").
- ``FINAL_MAIN_INSTRUCTION`` and ``FINAL_YES_NO_INSTRUCTION``: the last iteration's Main
  Module, which may answer from the model's own knowledge. The paper names it only
  through its demonstrations (the ``final_main`` module of the authors' files); the
  wording is the authors' released code's (AdelWang/MIGRES, ``code/pipeline.py``,
  ``instruction_main_last``), the only source there is.

Layout. Every prompt is the fixed instruction, then the fixed demonstrations (few-shot),
then the question-specific part, so a backend that caches a shared prefix (llama.cpp)
evaluates the instruction and demonstrations once per module::

    <instruction>\\n\\n[<demonstrations>\\n\\n]<instance>

Instances are laid out as in the authors' demonstrations: ``Passage i: (Title: t) text``
lines, ``Information: a; b``, ``Question: ...``, ``Your response:``.
"""

from __future__ import annotations

from typing import Final, Sequence

MAIN_INSTRUCTION: Final = (
    'Answer the Question based solely on the provided Information. If the Information is insufficient to '
    'answer the Question, the answer should be "unanswerable", and you should provide your explanation and a '
    'summary of missing information. Otherwise, write an accurate and concise answer to the Question with a '
    'confidence score varying from 1 (not confident) to 5 (very confident) then explain. Your response should '
    'be under the format {"answer": {"text": your answer, "confidence": confidence score }, "explanation": '
    'your explanation, "missing_information": the summary of missing information}. Please generate a dict '
    'format response.')

YES_NO_SENTENCE: Final = 'your task is to reason from the Information whether the answer to the Question is ' \
                         '"yes" or "no"'

QUERY_INSTRUCTION: Final = (
    'Based on the Original Question, Historical Questions, Known Information and Missing Information, write no '
    'more than 3 queries that ask for Missing Information to solve the Original Question. If the missing '
    'information is multi-hop, decompose it into several simple and single-hop queries. The new queries should '
    'not contain redundant information and should differ from the Original Question and Historical Questions.')

LEAF_INSTRUCTION: Final = (
    'Given the following Question and Passages, please distillate useful information from the Passages to '
    'address the Question effectively and list the support passage index for each distilled information. Your '
    'response should be under the format {"useful_information": [{"info": statement of distilled useful '
    'information combining the question, "support_passages": [indexes of support passages]}]}. Not provided '
    'information should not appear in your response. Please generate a dict format response.')

KNOWLEDGE_INSTRUCTION: Final = "Generation relevant information to the given question."

FINAL_MAIN_INSTRUCTION: Final = (
    'Answer the Question based on the provided Information. If the Information is not sufficient to answer the '
    'question, answer it based on your own knowledge. Please provide an accurate and concise answer with a '
    'confidence score varying from 1 (not confident) to 5 (very confident) and provide your explanation. Your '
    'response should be under the format {"answer": {"text": your concise answer, "confidence": confidence '
    'score}, "explanation": your explanation}.')

FINAL_YES_NO_INSTRUCTION: Final = (
    'Given the following Question and Information, your task is to reason from the Information whether the '
    'answer to the Question is "yes" or "no". If the Information is not sufficient to reason an answer, answer '
    'it based on your own knowledge. Please provide an accurate and concise answer with a confidence score '
    'varying from 1 (not confident) to 5 (very confident) and provide your explanation. Your response should be '
    'under the format {"answer": {"text": Yes or No, "confidence": confidence score}, "explanation": your '
    'explanation}.')

#: Written where a list of the prompt is empty, as the authors' demonstrations do.
NONE: Final = "None"
#: How known information is joined (the authors' demonstrations).
INFO_SEPARATOR: Final = "; "
#: Between the instruction, the demonstrations and the instance.
BLOCK_SEPARATOR: Final = "\n\n"


def main_instruction(yes_no: bool, final: bool) -> str:
    """The Main Module's instruction: the iteration's (Table 17) or the last one's, for yes/no questions or not."""
    if final:
        return FINAL_YES_NO_INSTRUCTION if yes_no else FINAL_MAIN_INSTRUCTION
    if yes_no:
        return f"Given the following Question and Information, {YES_NO_SENTENCE}. {MAIN_INSTRUCTION}"
    return MAIN_INSTRUCTION


def prefixed(instruction: str, demonstrations: str | None) -> str:
    """The fixed part of a prompt: the instruction, then the demonstrations if any, then a blank line."""
    blocks = [instruction, demonstrations.strip()] if demonstrations and demonstrations.strip() else [instruction]
    return BLOCK_SEPARATOR.join(blocks) + BLOCK_SEPARATOR


def known_information(facts: Sequence[str]) -> str:
    """The known information as the prompts show it: joined with "; ", or "None"."""
    return INFO_SEPARATOR.join(facts) if facts else NONE


def main_instance(facts: Sequence[str], question: str) -> str:
    """The Main Module's question-specific part (both variants)."""
    return f"Information: {known_information(facts)}\nQuestion: {question}\nYour response:"


def query_instance(question: str, asked: Sequence[str], facts: Sequence[str], missing: str) -> str:
    """The Query Generator's question-specific part."""
    history = " ".join(asked) if asked else NONE
    return (f"Original Question: {question}\nHistorical Questions: {history}\n"
            f"Known Information: {known_information(facts)}\nMissing Information: {missing}\nNew queries:")


def passage_line(index: int, text: str, title: str | None) -> str:
    """One passage of the Leaf Module's prompt; LLM knowledge has no title."""
    return f"Passage {index}: (Title: {title}) {text}" if title is not None else f"Passage {index}: {text}"


def leaf_instance(passages: Sequence[tuple[str, str | None]], question: str) -> str:
    """The Leaf Module's question-specific part: the passages ``(text, title)`` numbered from 0, then the question."""
    lines = [passage_line(index, text, title) for index, (text, title) in enumerate(passages)]
    return "\n".join([*lines, f"Question: {question}", "Your response:"])


def knowledge_instance(query: str) -> str:
    """LLM knowledge prompting's question-specific part (Table 15)."""
    return f"Question: {query}\nInformation:"
