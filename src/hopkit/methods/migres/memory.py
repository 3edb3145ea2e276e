"""MIGRES's Memory Module (Section 3.2): the queries asked, the passages used, the known information.

It keeps the Query Generator from asking again what was asked ("the new queries ...
should differ from the Original Question and Historical Questions"), keeps hard-negative
passages from coming back (a passage used ``max_uses`` times, 2 in the authors' code, is
not given to the Leaf Module again; a use is being shown to it, and being cited by
information it kept), and holds the known information without duplicates.
"""

from __future__ import annotations

import re
from collections import Counter
from typing import Hashable, Iterable

_SPACE = re.compile(r"\s+")
_EDGE_PUNCTUATION = " \t\n.?!;:,\"'"


def normalized(text: str) -> str:
    """``text`` compared as the memory compares it: case-folded, spaces collapsed, edge punctuation removed."""
    return _SPACE.sub(" ", text.casefold()).strip(_EDGE_PUNCTUATION)


class Memory:
    """What MIGRES has asked, used and learnt for one question.

    Args:
        max_uses: uses after which a passage is no longer given to the Leaf Module.
    """

    def __init__(self, max_uses: int = 2) -> None:
        self.max_uses = max_uses
        self.asked: list[str] = []
        self.facts: list[str] = []
        self._asked: set[str] = set()
        self._facts: set[str] = set()
        self._uses: Counter[Hashable] = Counter()

    def ask(self, queries: Iterable[str]) -> tuple[list[str], list[str]]:
        """Remember the queries not asked before.

        Returns:
            The new queries (in order, each once) and the repeated ones.
        """
        new: list[str] = []
        repeated: list[str] = []
        for query in queries:
            key = normalized(query)
            if not key or key in self._asked:
                repeated.append(query)
                continue
            self._asked.add(key)
            self.asked.append(query)
            new.append(query)
        return new, repeated

    def ask_at_most(self, queries: Iterable[str], limit: int) -> tuple[list[str], list[str]]:
        """Remember the first ``limit`` queries not asked before; the rest are not read.

        Returns:
            The new queries and the repeated ones met before the limit was reached.
        """
        new: list[str] = []
        repeated: list[str] = []
        for query in queries:
            if len(new) == limit:
                break
            added, again = self.ask([query])
            new.extend(added)
            repeated.extend(again)
        return new, repeated

    def learn(self, fact: str) -> bool:
        """Add ``fact`` to the known information; False when it is already known."""
        key = normalized(fact)
        if not key or key in self._facts:
            return False
        self._facts.add(key)
        self.facts.append(fact.strip())
        return True

    def use(self, passage: Hashable) -> None:
        """Count one use of ``passage`` (a paragraph id, or the text of LLM knowledge)."""
        self._uses[passage] += 1

    def exhausted(self, passage: Hashable) -> bool:
        """Whether ``passage`` was used ``max_uses`` times and is not to be given again."""
        return self._uses[passage] >= self.max_uses

    def uses(self, passage: Hashable) -> int:
        """How often ``passage`` was used."""
        return self._uses[passage]
