"""DRAGIN's answer stage, as the authors' ``src/eval.py`` (``regenerate_answer``) and ``src/data.py``
(``get_real_prediction``) read the loop's text::

    T <- T cut before "Question:", "#10000000" or "Note:" (where they are not its first characters)
    if T lacks "the answer is":
        T <- T + " So the answer is " + LLM(exemplars, case, T + " So the answer is "), 20 tokens, cut the same way
    answer <- what follows "the answer is " to the end of T, a final end-of-text mark and "." removed
              (none: "" on HotpotQA, all of T on 2WikiMultihopQA; StrategyQA: "yes" when it begins so, else "no")
"""

from __future__ import annotations

from typing import Literal

#: the authors' marks of a run-on past the answer (eval.py ``split_words``)
RUN_ON_MARKS = ("Question:", "#10000000", "Note:")
#: what the authors' readings look for (case-sensitive, as theirs)
ANSWER_SAYS = "the answer is"
#: what the authors append to a text that never says it, before generating the answer
ANSWER_PROMPT = " So the answer is "
#: the tokens generated after it (eval.py ``max_new_tokens``)
ANSWER_TOKENS = 20
_END_MARKS = ("</s>", "<|endoftext|>")

#: how a dataset's answer is read: ``span`` (HotpotQA: "" without the phrase), ``span_or_text``
#: (2WikiMultihopQA: the whole text without it), ``yes_no`` (StrategyQA)
AnswerForm = Literal["span", "span_or_text", "yes_no"]
ANSWER_FORMS: tuple[AnswerForm, ...] = ("span", "span_or_text", "yes_no")


def cut_run_on(text: str) -> str:
    """``text`` cut before each run-on mark found after its first character, in the authors' order."""
    for mark in RUN_ON_MARKS:
        at = text.find(mark)
        if at > 0:
            text = text[:at]
    return text


def regeneration_prompt(demonstrations: str, case: str, text: str) -> str:
    """The prompt of the answer's generation: the exemplars, the case and the text with "So the answer is"."""
    return demonstrations + case + " " + text + ANSWER_PROMPT


def with_generated_answer(text: str, generated: str) -> str:
    """The text, "So the answer is" and the generated words, cut before any run-on mark."""
    whole = text + ANSWER_PROMPT + generated.strip()
    for mark in RUN_ON_MARKS:
        at = whole.find(mark)
        if at >= 0:
            whole = whole[:at]
    return whole


def real_prediction(text: str, form: AnswerForm) -> str:
    """The answer the authors' ``get_real_prediction`` of the dataset reads off ``text``, without the spaces
    around it (their metrics normalise them away; hopkit stores the answer)."""
    at = text.find(ANSWER_SAYS)
    if at < 0:
        return text.strip() if form == "span_or_text" else ""
    rest = text[at + len(ANSWER_SAYS) + 1:]
    if form == "yes_no":
        return "yes" if rest[:3].lower() == "yes" else "no"
    for mark in _END_MARKS:
        if rest.endswith(mark):
            rest = rest[:-len(mark)]
    return (rest[:-1] if rest.endswith(".") else rest).strip()
