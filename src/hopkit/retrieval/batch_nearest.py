"""One index search for a batch of queries, handed out to each query's own search.

A dense retriever searches its index one query vector at a time. When a batch of queries is known
beforehand (a retrieval server's batch), :class:`BatchNearest` searches the index once for all of their
vectors, one search per distinct count of rows wanted, and keeps what each vector found; each query's
own search then takes its rows from here instead of searching again. The rows a vector finds do not
depend on the other vectors of the batch (FAISS searches each row of a batch on its own), so the answers
are the ones the queries get one by one.
"""

from __future__ import annotations

from typing import Any, Callable, Sequence

import numpy as np

#: Searches an index for the rows nearest to each row of a ``(m, dim)`` float32 array: one result per row.
SearchMany = Callable[[np.ndarray, int], Sequence[Any]]


class BatchNearest:
    """What a batch's query vectors found in one search of an index, by vector and count wanted."""

    def __init__(self) -> None:
        self._found: dict[tuple[bytes, int], Any] = {}

    def fill(self, vectors: Sequence[np.ndarray], wanted: Sequence[int], search_many: SearchMany) -> None:
        """Search once for every distinct nonzero vector of ``vectors`` (each with its count ``wanted``)."""
        groups: dict[int, dict[bytes, np.ndarray]] = {}
        for vector, count in zip(vectors, wanted):
            if vector.any():
                groups.setdefault(count, {}).setdefault(vector.tobytes(), vector)
        for count, distinct in groups.items():
            found = search_many(np.stack(list(distinct.values())).astype(np.float32), count)
            self._found.update({(key, count): result for key, result in zip(distinct, found)})

    def take(self, vector: np.ndarray, wanted: int) -> Any | None:
        """What ``vector`` found for ``wanted`` rows in the batch's search (None: it was not searched)."""
        return self._found.get((vector.tobytes(), wanted))

    def clear(self) -> None:
        self._found.clear()

    def __len__(self) -> int:
        return len(self._found)
