"""SearChain's Chain-of-Query (Xu et al., WWW 2024) as small models write it.

The format::

    [Query 1]: Who founded Velmora Ironworks?
    [Answer 1]: Ada Quill.
    [Unsolved Query]: Where was Ada Quill born?
    [Final Content]: Velmora Ironworks was founded by Ada Quill [1] ...

Tolerated: tags without numbers, in any case, misspelled by a letter (``[Querry 2]``),
without brackets at a line start (``Query 2:``, ``**Answer 2:**``), several on one line,
repeated, and prose between them. A chain cut off before ``[Final Content]`` keeps its
nodes, the last one flagged incomplete.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Iterator, Literal

from rapidfuzz.distance import OSA

from hopkit.errors import ParseError

TagKind = Literal["query", "answer", "unsolved", "final"]

_BRACKETED = re.compile(r"\[[ \t]*([^\W\d_][^\W\d]{0,15}(?:[ \t]+[^\W\d]{1,15})?)[ \t]*(\d{1,4})?[ \t]*\][ \t]*:?")
_LINE_START = re.compile(
    r"^[ \t>*#-]*([^\W\d_][^\W\d]{0,15}(?:[ \t]+[^\W\d]{1,15})?)[ \t]*(\d{1,4})?[ \t]*\**[ \t]*:", re.MULTILINE)
EXPECTED = "a chain of [Query i]: / [Answer i]: lines ending in [Final Content]:"


@dataclass(frozen=True)
class ChainNode:
    """One node of a chain.

    Attributes:
        index: the node's position in the chain, from 1.
        query: the query the model asked.
        answer: the model's answer, None when it gave none.
        unsolved: the model marked the query ``[Unsolved Query]``.
        complete: False for the last node of a chain cut off before its final content.
    """

    index: int
    query: str
    answer: str | None
    unsolved: bool = False
    complete: bool = True


@dataclass(frozen=True)
class Chain:
    """A parsed Chain-of-Query: its nodes and the final content (None when cut off before it)."""

    nodes: tuple[ChainNode, ...]
    final_content: str | None


@dataclass
class _Draft:
    number: int | None
    query: str
    unsolved: bool
    answer: str | None = None


@dataclass(frozen=True)
class _Tag:
    kind: TagKind
    number: int | None
    start: int
    end: int


def parse_chain(text: str) -> Chain:
    """The nodes and final content of a Chain-of-Query.

    An answer goes to the open node with its number, else to the last node if that has
    none; a query repeated with its number right after itself is kept once. The final
    content runs to the next query or final tag (a new chain), which is ignored.

    Raises:
        ParseError: the text holds no query and no final content.
    """
    drafts: list[_Draft] = []
    final: str | None = None
    tags = list(_tags(text))
    starts = [tag.start for tag in tags] + [len(text)]
    for position, tag in enumerate(tags):
        if tag.kind == "final":
            stop = next((t.start for t in tags[position + 1:] if t.kind != "answer"), len(text))
            final = text[tag.end:stop].strip().lstrip("*").strip()
            break
        content = _first_line(text[tag.end:starts[position + 1]])
        if not content:
            continue
        if tag.kind == "answer":
            _attach(drafts, tag.number, content)
        elif not drafts or (drafts[-1].query, drafts[-1].number) != (content, tag.number):
            drafts.append(_Draft(tag.number, content, unsolved=tag.kind == "unsolved"))
    if not drafts and final is None:
        raise ParseError(EXPECTED, text, "no [Query], [Unsolved Query] or [Final Content] tag")
    nodes = tuple(ChainNode(index=i, query=d.query, answer=d.answer, unsolved=d.unsolved,
                            complete=final is not None or i < len(drafts))
                  for i, d in enumerate(drafts, start=1))
    return Chain(nodes=nodes, final_content=final)


def tag_kind(name: str) -> TagKind | None:
    """The kind of a tag name (``Query``, ``querry``, ``Unsolved Query``, ``Final Content``), or None."""
    words = name.casefold().replace("_", " ").split()
    if len(words) == 1:
        if _near(words[0], "query") or words[0] == "queries":
            return "query"
        if _near(words[0], "answer"):
            return "answer"
        if _near(words[0], "unsolved"):
            return "unsolved"
    if len(words) == 2:
        first, second = words
        if _near(first, "unsolved", 2) and (_near(second, "query") or _near(second, "question")):
            return "unsolved"
        if _near(first, "final") and any(_near(second, word) for word in ("content", "contents", "answer")):
            return "final"
    return None


def _near(word: str, target: str, most: int = 1) -> bool:
    return OSA.distance(word, target, score_cutoff=most) <= most


def _tags(text: str) -> Iterator[_Tag]:
    found = []
    for pattern in (_BRACKETED, _LINE_START):
        for match in pattern.finditer(text):
            kind = tag_kind(match.group(1))
            if kind is not None:
                number = int(match.group(2)) if match.group(2) else None
                found.append(_Tag(kind, number, match.start(), match.end()))
    end = 0
    for tag in sorted(found, key=lambda tag: tag.start):
        if tag.start >= end:
            end = tag.end
            yield tag


def _first_line(segment: str) -> str:
    for line in segment.split("\n"):
        line = line.strip().strip("*").strip()
        if line:
            return line
    return ""


def _attach(drafts: list[_Draft], number: int | None, answer: str) -> None:
    open_with_number = (d for d in reversed(drafts) if d.answer is None and d.number == number)
    target = next(open_with_number, None) if number is not None else None
    if target is None and drafts and drafts[-1].answer is None:
        target = drafts[-1]
    if target is not None:
        target.answer = answer
