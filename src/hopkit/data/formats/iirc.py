"""IIRC in its official format (``dev.json`` plus optional ``context_articles.json``).

``dev.json`` is a JSON list of main passages::

    {"pid": str, "title": str, "text": str,
     "links": [{"target": str, "indices": [int, int]}],
     "questions": [{"qid": str, "question": str,
                    "answer": {"type": "span" | "value" | "binary" | "none",
                               "answer_spans": [{"text", "passage", "start", "end"}],
                               "answer_value": str, "answer_unit": str},
                    "question_links": [str],
                    "context": [{"passage": "main" | <linked title>, "text": str,
                                 "indices": [int, int]}]}]}

Every question keeps its main passage (``Example.main_passage``), which the
model always sees and which is never retrieved. The gold paragraphs are the
context snippets from linked pages. When ``context_articles.json`` is
available, each snippet is replaced by the page paragraph it comes from (fuzzy
match, as the IRCoT authors did), and every other paragraph of the pages linked
from the main passage (and of the gold pages) joins the question's context
as a distractor, so that pooling the questions' contexts builds the IRCoT
corpus ("all the paragraphs from all the Wikipedia pages present in the
dataset"). Unanswerable questions (answer
type ``none``) are dropped, as in the IRCoT paper.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from hopkit.data.formats._common import (
    Where,
    as_object,
    check_str,
    get_field,
    get_list,
    get_str,
    read_json_list,
    unique_answers,
)
from hopkit.data.formats.iirc_articles import MIN_WORDS, ArticleIndex, clean_title
from hopkit.records import ContextParagraph, Example

logger = logging.getLogger(__name__)

ARTICLES_FILE_NAME = "context_articles.json"
SKIPPED_ANSWER_TYPES = frozenset({"none", "bad"})
MATCH_THRESHOLD = 70.0


def load_iirc(path: str | Path, *, articles_path: str | Path | None = None, find_articles: bool = True,
              linked_pages: bool = True, min_words: int = MIN_WORDS,
              match_threshold: float = MATCH_THRESHOLD) -> list[Example]:
    """Load an official IIRC file (answerable questions only).

    Args:
        path: e.g. ``iirc_train_dev/dev.json``.
        articles_path: ``context_articles.json``; by default the file of that
            name next to ``path`` if ``find_articles`` and it exists.
        find_articles: look for the articles file next to ``path``.
        linked_pages: with articles, add every other paragraph of the pages
            linked from the main passage and of the gold pages to the context
            (non-supporting).
        min_words: article lines of at most this many words are not paragraphs.
        match_threshold: minimum fuzzy score (0-100) to replace a snippet by its
            page paragraph; below it the snippet itself is the gold paragraph.

    Returns:
        One Example per answerable question, in file order.

    Raises:
        DataError: malformed JSON, a missing or wrongly typed field, or an
            unknown answer type.
    """
    path = Path(path)
    articles = None
    if articles_path is not None:
        articles = ArticleIndex.load(Path(articles_path), min_words)
    elif find_articles and (path.parent / ARTICLES_FILE_NAME).is_file():
        articles = ArticleIndex.load(path.parent / ARTICLES_FILE_NAME, min_words)
    builder = _ContextBuilder(articles, match_threshold)
    examples: list[Example] = []
    skipped = 0
    for p_index, row in enumerate(read_json_list(path)):
        where = Where(str(path), record=f"passage #{p_index}")
        passage = as_object(row, where)
        main = ContextParagraph(title=clean_title(get_str(passage, "title", where)),
                                text=get_str(passage, "text", where), is_supporting=True)
        links = [clean_title(get_str(as_object(link, where.nested(f"links[{i}]")), "target",
                                     where.nested(f"links[{i}]"), allow_empty=True))
                 for i, link in enumerate(get_list(passage, "links", where, default=[]))]
        builder.remember_titles(links)
        pid = str(passage.get("pid") or p_index)
        for q_index, item in enumerate(get_list(passage, "questions", where)):
            q_where = Where(str(path), record=f"passage #{p_index} question #{q_index}")
            example = _question(item, q_where, main, links if linked_pages else [], builder,
                                default_id=f"{pid}-q{q_index}")
            if example is None:
                skipped += 1
            else:
                examples.append(example)
    if skipped:
        logger.info("%s: dropped %d unanswerable questions", path, skipped)
    return examples


def _question(item: Any, where: Where, main: ContextParagraph, links: list[str],
              builder: _ContextBuilder, default_id: str) -> Example | None:
    obj = as_object(item, where)
    qid = get_str(obj, "qid", where, default=default_id)
    where = where.with_id(qid)
    question = get_str(obj, "question", where)
    answers, answer_type = _answers(as_object(get_field(obj, "answer", where), where, "answer"), where.nested("answer"))
    if not answers:
        return None
    snippets = []
    for i, raw in enumerate(get_list(obj, "context", where)):
        snippet_where = where.nested(f"context[{i}]")
        snippet = as_object(raw, snippet_where)
        page = get_str(snippet, "passage", snippet_where)
        text = get_str(snippet, "text", snippet_where, allow_empty=True)
        if page != "main" and text:
            snippets.append((page, text))
    context = builder.build(snippets, links)
    return Example(id=qid, question=question, answers=answers, context=context, main_passage=main,
                   answer_type=answer_type)


def _answers(answer: Mapping[str, Any], where: Where) -> tuple[tuple[str, ...], str]:
    kind = get_str(answer, "type", where)
    if kind in SKIPPED_ANSWER_TYPES:
        return (), "span"
    if kind == "span":
        spans = [check_str(as_object(s, where.nested(f"answer_spans[{i}]")).get("text"),
                          where.nested(f"answer_spans[{i}]"), "text")
                 for i, s in enumerate(get_list(answer, "answer_spans", where))]
        if not spans:
            raise where.error("a span answer needs at least one span", "answer_spans")
        return unique_answers([", ".join(spans)]), "span"
    if kind == "binary":
        value = get_str(answer, "answer_value", where).lower()
        return (value,), "yes_no"
    if kind == "value":
        value = get_str(answer, "answer_value", where)
        unit = get_str(answer, "answer_unit", where, default="", allow_empty=True)
        return unique_answers([value, f"{value} {unit}" if unit else ""]), "span"
    raise where.error(f"unknown answer type {kind!r}; expected span, value, binary or none", "type")


@dataclass
class _ContextBuilder:
    """Turns a question's snippets and its passage's links into context paragraphs."""

    articles: ArticleIndex | None
    match_threshold: float
    _titles: dict[str, str] = field(default_factory=dict)
    _pages: dict[str, tuple[ContextParagraph, ...]] = field(default_factory=dict)

    def remember_titles(self, titles: list[str]) -> None:
        """Record the spelling of page titles (first seen wins), keyed by lowercase."""
        for title in titles:
            if title:
                self._titles.setdefault(title.lower(), title)

    def canonical(self, title: str) -> str:
        """One spelling per page, so that two questions name it the same way."""
        title = clean_title(title)
        return self._titles.setdefault(title.lower(), title)

    def build(self, snippets: list[tuple[str, str]], links: list[str]) -> tuple[ContextParagraph, ...]:
        """Gold paragraphs first, then (with articles and links) the other paragraphs of the
        linked pages and of the gold paragraphs' pages."""
        gold: dict[tuple[str, str], ContextParagraph] = {}
        for page, text in snippets:
            title = self.canonical(page)
            if self.articles is not None:
                text = self.articles.best_paragraph(title, text, self.match_threshold) or text
            gold.setdefault((title, text), ContextParagraph(title=title, text=text, is_supporting=True))
        context = list(gold.values())
        if self.articles is not None and links:
            pages = [self.canonical(t) for t in links if t] + [title for title, _ in gold]
            for page in dict.fromkeys(pages):
                context.extend(p for p in self._page(page) if (p.title, p.text) not in gold)
        return tuple(context)

    def _page(self, title: str) -> tuple[ContextParagraph, ...]:
        if title not in self._pages:
            texts = self.articles.paragraphs(title) if self.articles is not None else ()
            self._pages[title] = tuple(ContextParagraph(title=title, text=t) for t in texts)
        return self._pages[title]
