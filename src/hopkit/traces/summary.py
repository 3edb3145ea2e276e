"""A method's per-question summary: the keys it stores beside the typed trace, as a frozen dataclass.

A method returns its summary as ``GenerationResult.metadata``; the runner stores its JSON form
(:meth:`Summary.to_json`) beside the typed trace, the keys being the fields' names, and analysis
reads a stored result's back with :meth:`Summary.from_result_trace`. A summary also reads as a
read-only mapping of that JSON form, so the documented ``result.metadata["steps"]`` works as it
always has; new code reads the attribute (``result.metadata.steps``).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
from typing import Any, Iterator, Mapping, TypeVar

from hopkit.traces.payload import Record
from hopkit.traces.trace import TRACE_KEY

__all__ = ["Summary"]

S = TypeVar("S", bound="Summary")


@dataclass(frozen=True)
class Summary(Record, Mapping[str, Any]):
    """A method's summary of one question (subclasses declare its keys as fields).

    Reading tolerates an older result (a key with a default may be missing; a key the type does
    not declare is ignored) and raises :class:`~hopkit.errors.TraceError` naming the key when a
    value has the wrong type.
    """

    @classmethod
    def from_result_trace(cls: type[S], stored: Mapping[str, Any]) -> S:
        """The summary stored in a result's trace (``QueryResult.trace``), beside the typed trace.

        Raises:
            TraceError: a key is missing or has the wrong type (the message names it).
        """
        return cls.from_json({key: value for key, value in stored.items() if key != TRACE_KEY},
                             f"the {cls.__name__} of a stored result")

    @cached_property
    def _json(self) -> dict[str, Any]:
        return self.to_json()

    def __getitem__(self, key: str) -> Any:
        return self._json[key]

    def __iter__(self) -> Iterator[str]:
        return iter(self._json)

    def __len__(self) -> int:
        return len(self._json)
