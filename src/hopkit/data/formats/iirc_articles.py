"""IIRC's ``context_articles.json``: the Wikipedia pages linked from the main passages.

The file is one JSON object mapping a (mostly lowercased) page title to the
page's HTML. The IRCoT authors split each page's text into paragraphs at line
breaks and kept the lines of more than 10 words; :class:`ArticleIndex` does the
same, lazily and once per page, and matches an annotated context snippet to
the paragraph it comes from.
"""

from __future__ import annotations

import html
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from html.parser import HTMLParser
from pathlib import Path

from rapidfuzz import fuzz

from hopkit.data.formats._common import read_json, type_name
from hopkit.errors import DataError

MIN_WORDS = 10


class _TextCollector(HTMLParser):
    """Collects the text of an HTML fragment, tags dropped, entities decoded."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.parts: list[str] = []

    def handle_data(self, data: str) -> None:
        self.parts.append(data)


_TAG = re.compile(r"<[^>]*>")


def html_to_text(fragment: str) -> str:
    """Return the text of an HTML fragment (tags removed, entities decoded, line breaks kept).

    Markup that :mod:`html.parser` gives up on (it raises ``AssertionError`` on
    some malformed declarations, e.g. ``<![;``) falls back to dropping anything
    between ``<`` and ``>``, so one odd page never stops a dataset from loading.
    """
    collector = _TextCollector()
    try:
        collector.feed(fragment)
        collector.close()
    except AssertionError:  # html.parser's way of rejecting a malformed declaration
        return html.unescape(_TAG.sub("", fragment))
    return "".join(collector.parts)


def split_paragraphs(page_html: str, min_words: int = MIN_WORDS) -> list[str]:
    """Split a page into paragraphs: its text lines of more than ``min_words`` words."""
    lines = (line.strip() for line in html_to_text(page_html).split("\n"))
    return [line for line in lines if len(line.split()) > min_words]


def clean_title(title: str) -> str:
    """Normalise a page title as IIRC writes it (HTML entities, stray spaces)."""
    return " ".join(html.unescape(title).split())


@dataclass
class ArticleIndex:
    """Pages of ``context_articles.json``, split into paragraphs on first use.

    Args:
        pages: page title (as the file keys it) -> page HTML.
        min_words: keep only lines with more than this many words.
    """

    pages: Mapping[str, str]
    min_words: int = MIN_WORDS
    _cache: dict[str, tuple[str, ...]] = field(default_factory=dict, init=False, repr=False)

    @classmethod
    def load(cls, path: Path, min_words: int = MIN_WORDS) -> ArticleIndex:
        """Read ``context_articles.json``.

        Raises:
            DataError: unreadable, malformed, or not an object of strings.
        """
        data = read_json(path)
        if not isinstance(data, dict):
            raise DataError(f"expected a JSON object of title -> HTML, got {type_name(data)}", path=str(path))
        for key, value in data.items():
            if not isinstance(value, str):
                raise DataError(f"expected the page HTML as a string, got {type_name(value)}",
                                path=str(path), record=repr(key))
        return cls(pages=data, min_words=min_words)

    def paragraphs(self, title: str) -> tuple[str, ...]:
        """The page's paragraph texts, or ``()`` if the page is missing or empty."""
        key = self._key(title)
        if key is None:
            return ()
        if key not in self._cache:
            self._cache[key] = tuple(split_paragraphs(self.pages[key], self.min_words))
        return self._cache[key]

    def best_paragraph(self, title: str, snippet: str, threshold: float) -> str | None:
        """The page paragraph that contains ``snippet`` best (fuzzy), if it scores at least ``threshold``.

        Args:
            title: the page.
            snippet: the annotated text, a part of some paragraph.
            threshold: minimum rapidfuzz ``partial_ratio`` (0-100).
        """
        best_text, best_score = None, -1.0
        for text in self.paragraphs(title):
            score = fuzz.partial_ratio(snippet, text)
            if score > best_score:
                best_text, best_score = text, score
        return best_text if best_score >= threshold else None

    def _key(self, title: str) -> str | None:
        for key in (title, title.lower(), clean_title(title).lower()):
            if key in self.pages:
                return key
        return None

