"""The prompts of the LLM-as-judge backends, and the check that a replacement prompt fits.

Each yes/no prompt ends in ``"Answer:"`` so the judge reads the model's next token,
``" yes"`` or ``" no"``. The part shared by the calls of one batch comes first (the
query for relevance, the text for similarity), so a backend that reuses the KV cache of
a common prefix (llama.cpp) evaluates it once; the answer check extends the reading
prompt, so its passage and question are served from the cache of the generation just
before it.
"""

from __future__ import annotations

import string
from typing import Final

from hopkit.errors import ConfigError

RELEVANCE_PROMPT: Final = (
    "Decide whether a passage helps to answer a question.\n"
    "Question: {query}\n"
    "Passage: {text}\n"
    "Does the passage contain information that helps to answer the question? Answer yes or no.\n"
    "Answer:")

ENTAILMENT_PROMPT: Final = (
    "Decide whether the premise entails the hypothesis: if the premise is true, the hypothesis must be true.\n"
    "Premise: {premise}\n"
    "Hypothesis: {hypothesis}\n"
    "Does the premise entail the hypothesis? Answer yes or no.\n"
    "Answer:")

SIMILARITY_PROMPT: Final = (
    "Decide whether two search queries ask for the same information.\n"
    "Query 1: {text}\n"
    "Query 2: {other}\n"
    "Do the two queries ask for the same information? Answer yes or no.\n"
    "Answer:")

ANSWER_PROMPT: Final = (
    "Read the passage and answer the question with a short span copied from the passage.\n"
    "Passage: {passage}\n"
    "Question: {question}\n"
    "Answer:")

ANSWER_CHECK_SUFFIX: Final = (
    " {answer}\n"
    "Does the passage show that this answer to the question is correct? Answer yes or no.\n"
    "Answer:")

ANSWER_CHECK_PROMPT: Final = ANSWER_PROMPT + ANSWER_CHECK_SUFFIX

#: Worked examples put before the reading prompt (``examples=True``): a small model told
#: only to "copy a short span" still answers in sentences ("X was born in Y. The passage
#: states ..."), which never appear inside the chain's answer, so every node looks wrong.
ANSWER_EXAMPLES: Final = (
    "Answer each question with the shortest part of its passage that answers it: a name, a place, "
    "a date or a number, never a sentence.\n\n"
    "Passage: Lake Baikal: Lake Baikal is a rift lake in southern Siberia, Russia, and the deepest lake on "
    "Earth.\n"
    "Question: In which country is Lake Baikal?\n"
    "Answer: Russia\n\n"
    "Passage: Tower Bridge: Tower Bridge is a bascule and suspension bridge over the Thames in London, built "
    "between 1886 and 1894 to a design by Horace Jones.\n"
    "Question: Who designed Tower Bridge?\n"
    "Answer: Horace Jones\n\n"
    "Passage: The Old Man and the Sea: The Old Man and the Sea is a short novel that Ernest Hemingway wrote "
    "in Cuba in 1951; it was published the next year, in 1952.\n"
    "Question: When was The Old Man and the Sea published?\n"
    "Answer: 1952\n\n")

ANSWER_PROMPT_WITH_EXAMPLES: Final = ANSWER_EXAMPLES + (
    "Passage: {passage}\n"
    "Question: {question}\n"
    "Answer:")


def check_template(template: str, fields: set[str], option: str) -> None:
    """Refuse a prompt template whose placeholders are not exactly ``fields``.

    Args:
        template: a ``str.format`` template (literal braces doubled).
        fields: the placeholders it must have, each at least once.
        option: the option's name, for the message.

    Raises:
        ConfigError: the template is not a string, does not parse, lacks a placeholder or
            has an unknown one.
    """
    if not isinstance(template, str):
        raise ConfigError(f"option {option!r}: expected a prompt template string, got {type(template).__name__}")
    try:
        found = {name for _, name, _, _ in string.Formatter().parse(template) if name is not None}
    except ValueError as exc:
        raise ConfigError(f"option {option!r}: not a valid template ({exc}); write literal braces as {{{{ }}}}") \
            from None
    if found != fields:
        raise ConfigError(f"option {option!r}: the template must have the placeholders "
                          f"{', '.join('{' + f + '}' for f in sorted(fields))}; it has "
                          f"{', '.join('{' + f + '}' for f in sorted(found)) or 'none'}")
