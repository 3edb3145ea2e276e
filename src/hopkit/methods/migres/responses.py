"""Reading MIGRES's model responses: the Main Module's verdict, the Leaf Module's facts, new queries.

The responses are dict-like text (Table 17's formats); they are read with the tolerant
parsers of :mod:`hopkit.parsing`, never evaluated. Each reader raises
:class:`~hopkit.errors.ParseError` (which keeps the raw text) when nothing usable is found.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from hopkit.errors import ParseError
from hopkit.parsing import FieldKind, parse_dict, parse_list

UNANSWERABLE = "unanswerable"
_MAIN_FIELDS: dict[str, FieldKind] = {"text": "str", "confidence": "int", "explanation": "str", "missing_information": "str"}
_FLAT_MAIN_FIELDS: dict[str, FieldKind] = {"answer": "str", "confidence": "int", "explanation": "str", "missing_information": "str"}
_MAIN_OPTIONAL = ("confidence", "explanation", "missing_information")
_INFO_KEY = re.compile(r"[\"'\u201c\u2018]?\binfo[\"'\u201d\u2019]?\s*:", re.IGNORECASE)
_USEFUL_KEY = re.compile(r"useful[\s_-]*information", re.IGNORECASE)
_EMPTY_LIST = re.compile(r"useful[\s_-]*information[\"'\u201d\u2019]?\s*:\s*\[\s*\]", re.IGNORECASE)
# What may open a query's line: a bullet, a number, or a label ("Query 2:", "New queries:").
_LINE_MARKER = re.compile(r"^\s*(?:[-*\u2022]\s+|\d{1,2}[.)]\s+|(?:new\s+)?(?:quer(?:y|ies)|q)\s*\d*\s*:\s*)",
                          re.IGNORECASE)

# A list number inside a line: "... born? 2. What ..." (not "2.5 million": a space must follow).
_INLINE_NUMBER = re.compile(r"(?:^|(?<=\s))(\d{1,2})[.)]\s+(?=\S)")
# Where a question ends and a new sentence begins: "... compare? To solve it, we ..." (not
# 'Who sang "Why?" in 1990?', where the words after the mark go on in lower case).
_AFTER_QUESTION_MARK = re.compile(r"(?:(?<=\?)|(?<=\?[\"'”’)]))\s+(?=[A-Z\"'“‘(])")


@dataclass(frozen=True)
class MainVerdict:
    """What the Main Module said.

    Attributes:
        answer: the answer's text ("unanswerable" when the information does not suffice).
        confidence: 1 (not confident) to 5 (very confident); 1 when the model gave none.
        explanation: its explanation ("" when none).
        missing: the summary of missing information ("" when none).
    """

    answer: str
    confidence: int
    explanation: str
    missing: str

    @property
    def unanswerable(self) -> bool:
        """Whether the model said the information does not answer the question."""
        return UNANSWERABLE in self.answer.casefold()

    @property
    def missing_information(self) -> str:
        """What to ask for next with the authors' rule (:meth:`wanted` with 10 characters)."""
        return self.wanted(10)

    def wanted(self, min_chars: int) -> str:
        """What to ask for next: the missing information, or the explanation when the missing
        information is shorter than ``min_chars`` characters (the authors' code: 10; 1: only when
        it is blank)."""
        missing = self.missing.strip()
        return self.explanation.strip() if len(missing) < min_chars else missing


@dataclass(frozen=True)
class LeafFact:
    """One piece of useful information the Leaf Module extracted, with the passage indices it cites."""

    info: str
    support: tuple[int, ...]


def parse_main(text: str) -> MainVerdict:
    """The Main Module's response: ``{"answer": {"text", "confidence"}, "explanation", "missing_information"}``.

    A flat ``"answer": "..."`` is read too. The confidence is clamped to 1-5.

    Raises:
        ParseError: no answer text is found, or it is empty.
    """
    try:
        values = parse_dict(text, _MAIN_FIELDS, optional=_MAIN_OPTIONAL)
        answer = values["text"]
    except ParseError as nested_error:
        try:
            values = parse_dict(text, _FLAT_MAIN_FIELDS, optional=_MAIN_OPTIONAL)
        except ParseError:
            raise nested_error from None
        answer = values["answer"]
    answer = str(answer).strip()
    if not answer:
        raise ParseError("a dict with a non-empty answer text", text, "the answer is empty")
    confidence = values["confidence"]
    return MainVerdict(answer=answer,
                       confidence=min(5, max(1, confidence)) if isinstance(confidence, int) else 1,
                       explanation=str(values["explanation"] or "").strip(),
                       missing=str(values["missing_information"] or "").strip())


def parse_leaf(text: str) -> list[LeafFact]:
    """The Leaf Module's ``{"useful_information": [{"info", "support_passages"}, ...]}``.

    Each ``info`` member is read on its own, so one malformed item does not lose the
    others; an item whose support is not a list of indices (``[GPT knowledge]``) keeps
    an empty support. An explicitly empty list gives no facts.

    Raises:
        ParseError: neither an ``info`` member nor an empty ``useful_information`` list is found.
    """
    starts = [match.start() for match in _INFO_KEY.finditer(text)]
    if not starts:
        if _EMPTY_LIST.search(text):
            return []
        detail = "no 'info' member" if _USEFUL_KEY.search(text) else "no 'useful_information'"
        raise ParseError('a dict {"useful_information": [{"info": ..., "support_passages": [...]}]}', text, detail)
    facts: list[LeafFact] = []
    for number, start in enumerate(starts):
        piece = text[start:starts[number + 1] if number + 1 < len(starts) else len(text)]
        fact = _leaf_item(piece)
        if fact is not None:
            facts.append(fact)
    if not facts:
        raise ParseError('a dict {"useful_information": [{"info": ..., "support_passages": [...]}]}', text,
                         "no 'info' member has a value")
    return facts


def _leaf_item(piece: str) -> LeafFact | None:
    try:
        values = parse_dict(piece, {"info": "str", "support_passages": "list[int]"}, optional=("support_passages",))
    except ParseError:
        try:
            values = parse_dict(piece, {"info": "str"})
        except ParseError:
            return None
    info = str(values["info"]).strip()
    support = values.get("support_passages")
    indices = [i for i in support if isinstance(i, int)] if isinstance(support, list) else []
    return LeafFact(info, tuple(dict.fromkeys(indices))) if info else None


def parse_queries(text: str, *, cut_short: bool = False) -> list[str]:
    """The Query Generator's new queries: one per line (or a bracketed list), markers and duplicates removed.

    A numbered list run into one line ("1. Who? 2. Where?") is split at its numbers. When
    the response asks questions, only its questions are queries: the prose a small model
    writes around them (a preamble, a heading echoed from the prompt, an explanation run on
    after the question mark) is dropped. When ``max_tokens`` cut the response short
    (``cut_short``), its last query is unfinished and is dropped, unless it is the only one.

    Raises:
        ParseError: no query is found.
    """
    if text.lstrip().startswith("["):
        items = parse_list(text)
    else:
        items = [item for line in text.splitlines() for item in _inline_numbered(line)]
    unmarked = [_unquoted(_LINE_MARKER.sub("", _LINE_MARKER.sub("", item)).strip()) for item in items]  # "- Query 3:"
    queries = [query for query in unmarked if query]
    if cut_short and len(queries) > 1:
        queries = queries[:-1]
    found = list(dict.fromkeys(_questions_only(queries)))
    if not found:
        raise ParseError("one query per line", text, "no query")
    return found


def _questions_only(items: list[str]) -> list[str]:
    """The questions in ``items``, each on its own (else ``items``: the queries are not questions)."""
    pieces = [piece.strip() for item in items for piece in _AFTER_QUESTION_MARK.split(item)]
    questions = [_unquoted(piece) for piece in pieces if piece.rstrip("\"'”’)").endswith("?")]
    return questions or items


def _inline_numbered(line: str) -> list[str]:
    """``line`` split before each number of a list counted on inside it (else ``[line]``).

    A number counts only where a sentence ends ("Who won 3. place?" is one query). The count
    starts at the line's own leading number ("2. Who? 3. Where?" continues a list numbered
    across lines), else at 1.
    """
    matches = list(_INLINE_NUMBER.finditer(line))
    leads = bool(matches) and matches[0].start(1) == len(line) - len(line.lstrip())
    cuts, expected = [], int(matches[0].group(1)) if leads else 1
    for match in matches:
        number = int(match.group(1))
        ends_sentence = line[:match.start(1)].rstrip()[-1:] in ("", "?", ".", "!", '"', "'")
        if number == expected and ends_sentence:
            cuts.append(match.start(1))
            expected += 1
    if len(cuts) < 2 and not leads:
        return [line]
    return [line[start:end] for start, end in zip([0, *cuts], [*cuts, len(line)]) if line[start:end].strip()]


def _unquoted(query: str) -> str:
    if len(query) >= 2 and query[0] == query[-1] and query[0] in "\"'":
        return query[1:-1].strip()
    return query
