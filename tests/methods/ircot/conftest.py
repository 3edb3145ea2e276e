"""Shared parts of the IRCoT loop tests: a tiny corpus, demonstrations, a recording retriever.

The constants are exposed through the ``kit`` fixture (the test modules are imported
with ``--import-mode=importlib``, so they cannot import a helper module).
"""

from __future__ import annotations

from dataclasses import dataclass
from types import SimpleNamespace
from typing import Collection

import pytest

from hopkit.records import Paragraph, Query, ScoredParagraph
from hopkit.retrieval.memory import InMemoryRetriever

LOST_GRAVITY = Paragraph(1, "Lost Gravity (roller coaster)",
                         "Lost Gravity is a steel roller coaster at Walibi Holland. It was manufactured by Mack Rides.")
MACK_RIDES = Paragraph(2, "Mack Rides", "Mack Rides GmbH & Co KG is a German company that builds amusement rides.")
WALIBI = Paragraph(3, "Walibi Holland", "Walibi Holland is an amusement park in Biddinghuizen, Netherlands.")
GERMANY = Paragraph(4, "Germany", "Germany is a country in Central Europe.")
GRAVITY = Paragraph(5, "Gravity", "Gravity is a fundamental interaction that was described by Newton.")
ROLLER = Paragraph(6, "Roller coaster", "A roller coaster is an amusement ride with a track.")
CORPUS = [LOST_GRAVITY, MACK_RIDES, WALIBI, GERMANY, GRAVITY, ROLLER]

QUESTION = Query(id="q1", text="In what country was Lost Gravity manufactured?", answers=("Germany",))

DEMO_1 = ("Wikipedia Title: Nosferatu\nNosferatu is a 1922 film directed by F.W. Murnau.\n\n"
          "Q: Who directed Nosferatu?\nA: Nosferatu was directed by F.W. Murnau. So the answer is: F.W. Murnau.")
DEMO_2 = ("Wikipedia Title: Walls and Bridges\nWalls and Bridges is an album by John Lennon.\n\n"
          "Q: Who made Walls and Bridges?\nA: Walls and Bridges is by John Lennon. So the answer is: John Lennon.")
DEMO_3 = ("Wikipedia Title: Reply 1988\nReply 1988 has 20 episodes.\n\n"
          "Q: How many episodes has Reply 1988?\nA: Reply 1988 has 20 episodes. So the answer is: 20.")
READER_DEMO = "Wikipedia Title: Reply 1988\nReply 1988 has 20 episodes.\n\nQ: How many episodes has Reply 1988?\nA: 20"


@dataclass(frozen=True)
class Call:
    """One call to the retriever."""

    query: str
    k: int
    exclude: frozenset[int]
    titles: frozenset[str] | None


class RecordingRetriever:
    """An InMemoryRetriever that remembers every call."""

    def __init__(self, paragraphs: list[Paragraph]) -> None:
        self.inner = InMemoryRetriever(paragraphs)
        self.calls: list[Call] = []

    def retrieve(self, query: str, k: int, exclude: Collection[int] = frozenset(),
                 titles: Collection[str] | None = None) -> list[ScoredParagraph]:
        self.calls.append(Call(query, k, frozenset(exclude), None if titles is None else frozenset(titles)))
        return self.inner.retrieve(query, k, exclude=exclude, titles=titles)


@pytest.fixture
def kit() -> SimpleNamespace:
    """The corpus, question and demonstrations, and the retriever class."""
    return SimpleNamespace(
        LOST_GRAVITY=LOST_GRAVITY, MACK_RIDES=MACK_RIDES, WALIBI=WALIBI, GERMANY=GERMANY, GRAVITY=GRAVITY,
        ROLLER=ROLLER, CORPUS=CORPUS, QUESTION=QUESTION, DEMO_1=DEMO_1, DEMO_2=DEMO_2, DEMO_3=DEMO_3,
        READER_DEMO=READER_DEMO, RecordingRetriever=RecordingRetriever,
    )
