"""The authors' small rules on what MIGRES knows and shows (AdelWang/MIGRES, ``code/pipeline.py`` and
``code/utils/search_engine.py``): the relation definitions a question starts with, the LLM knowledge
that is a refusal, the snippets too short to show, and the second BM25 search's prefix."""

from __future__ import annotations

#: ``RetGBatched.relationship_info``: a question naming the relation starts with its definition.
RELATION_DEFINITIONS: tuple[tuple[str, str], ...] = (
    ("maternal grandmother", "maternal grandmother is mother's mother"),
    ("maternal grandfather", "maternal grandfather is mother's father"),
    ("paternal grandmother", "paternal grandmother is father's mother"),
    ("paternal grandfather", "paternal grandfather is father's father"),
)

#: ``promptPassages``' filter_str: generated knowledge containing one of these (lower-cased) is dropped.
#: The misspelt "iinformation" is the authors' string, kept as they wrote it.
REFUSAL_STRINGS: tuple[str, ...] = ("sorry", "2022", "have no specific iinformation",
                                    "no publicly available information")

#: ``Bm25Searcher.perform_search``: the prefix of the second search when the first has too few hits.
SECOND_SEARCH_PREFIX = "Find information about "


def relation_hints(question: str) -> list[str]:
    """The definitions of the relations ``question`` names, in the authors' order."""
    lowered = question.lower()
    return [definition for relation, definition in RELATION_DEFINITIONS if relation in lowered]


def is_refusal(knowledge: str) -> bool:
    """Whether generated knowledge holds one of the authors' refusal strings."""
    lowered = knowledge.lower()
    return any(text in lowered for text in REFUSAL_STRINGS)


def too_short(snippet: str, min_words: int) -> bool:
    """Whether ``snippet`` has fewer than ``min_words`` words, counted as the authors count them
    (``len(snippet.split(" "))``)."""
    return len(snippet.split(" ")) < min_words
