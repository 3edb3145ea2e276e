"""The authors' token cuts, with the model's own tokenizer: the documents block cut to its first tokens
(Search-R1's ``_process_next_obs``, ``max_obs_length``) and the rolling prompt to its last ones
(``_update_rolling_state``, ``max_prompt_length``).

The authors cut token ids; the LLM protocol offers only ``count_tokens``, so the cut is made on the
text: the longest prefix (or suffix) whose ``count_tokens`` is within the limit, found by bisection
over character positions (about log2(length) counts, made only when the whole text is over). It keeps
what the authors' model reads but for the one token the cut splits (the authors keep its first part
as a token, hopkit drops it); a server's ``count_tokens`` is an estimate, and so then is the cut.
"""

from __future__ import annotations

from hopkit.llm.protocol import LLM


def head_tokens(llm: LLM, text: str, limit: int) -> str:
    """``text`` cut to its first ``limit`` tokens (all of it when it is within them)."""
    if llm.count_tokens(text) <= limit:
        return text
    low, high = 0, len(text)  # text[:low] fits, text[:high] does not
    while high - low > 1:
        middle = (low + high) // 2
        if llm.count_tokens(text[:middle]) <= limit:
            low = middle
        else:
            high = middle
    return text[:low]


def tail_start(llm: LLM, text: str, limit: int) -> int:
    """Where ``text``'s last ``limit`` tokens start (0 when it is within them)."""
    if llm.count_tokens(text) <= limit:
        return 0
    low, high = 0, len(text)  # text[high:] fits, text[low:] does not
    while high - low > 1:
        middle = (low + high) // 2
        if llm.count_tokens(text[middle:]) <= limit:
            high = middle
        else:
            low = middle
    return high
