"""Reading Search-o1's text: the query a generation ends with, the reasoning so far as the
Reason-in-Documents step is shown it, what that step found, and the final answer. Model output is
untrusted: each reader returns None or a fixed text where the expected markers are missing."""

from __future__ import annotations

import re

from hopkit.methods.search_o1.prompts import (BEGIN_SEARCH_QUERY, BEGIN_SEARCH_RESULT, END_SEARCH_QUERY,
                                              NO_HELPFUL_INFORMATION)

_QUERY = re.compile(re.escape(BEGIN_SEARCH_QUERY) + r"(.*?)" + re.escape(END_SEARCH_QUERY), re.DOTALL)
_BOXED = re.compile(r"\\boxed\{(.*)\}")
_TEXT = re.compile(r"\\text\{(.*)\}")
_FINAL_INFORMATION = "\n**Final Information**"
_MODIFIED_STEPS = "\n**Modified Reasoning Steps**"


def last_query(generation: str) -> str | None:
    """The last query between the search markers of a generation that ends with the closing one
    (the authors' ``extract_between`` and their check that the output ends there)."""
    if not generation.rstrip().endswith(END_SEARCH_QUERY):
        return None
    found = _QUERY.findall(generation)
    query = found[-1].replace(BEGIN_SEARCH_QUERY, " ").strip() if found else ""
    return query or None


def reasoning_for_documents(output: str) -> str:
    """The reasoning so far as the Reason-in-Documents prompt shows it: each line a numbered step;
    past five steps only the first, the last four and those with a search or its result, the rest
    shown as "..." (``run_search_o1.py``'s truncation)."""
    lines = output.replace("\n\n", "\n").split("\n")
    numbered = "".join(f"Step {number}: {line}\n\n" for number, line in enumerate(lines, start=1))
    steps = numbered.split("\n\n")
    if len(steps) <= 5:
        return "\n\n".join(steps).strip("\n")
    kept = ""
    for index, step in enumerate(steps):
        if index == 0 or index >= len(steps) - 4 or BEGIN_SEARCH_QUERY in step or BEGIN_SEARCH_RESULT in step:
            kept += step + "\n\n"
        elif not kept.endswith("\n\n...\n\n"):
            kept += "...\n\n"
    return kept.strip("\n")


def found_information(analysis: str) -> str:
    """What the Reason-in-Documents step found: the text after "**Final Information**" on one line
    (or after "**Modified Reasoning Steps**"), else "No helpful information found." (the authors'
    ``extract_answer`` in ``infogen`` mode, except that the marker may also open the analysis: an
    instruct model, unlike the authors' reasoning models, starts with it)."""
    analysis = "\n" + analysis
    if _FINAL_INFORMATION in analysis:
        return analysis.split(_FINAL_INFORMATION)[-1].replace("\n", "").strip("`").strip()
    if _MODIFIED_STEPS in analysis:
        return analysis.split(_MODIFIED_STEPS)[-1].strip("`").strip()
    return NO_HELPFUL_INFORMATION


def boxed_answer(output: str) -> str | None:
    """The last ``\\boxed{...}`` of the output, a ``\\text{...}`` inside it unwrapped, parentheses
    around it removed (the authors' ``extract_answer`` in ``qa`` mode); None when there is none."""
    found = _BOXED.findall(output)
    if not found:
        return None
    answer = found[-1]
    inner = _TEXT.findall(answer)
    if inner:
        answer = inner[-1]
    answer = answer.strip("()").strip()
    return answer or None
