"""What runs a run's questions: threads of this process, or workers of a Ray cluster."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Iterator, Protocol, runtime_checkable

from hopkit.executors.answers import StoredAnswer
from hopkit.executors.shared_questions import SharedQuestions
from hopkit.store.store import Store


@dataclass(frozen=True)
class RunJob:
    """The run whose questions an executor answers: where results go and how they are traced."""

    store: Store
    run_id: str
    name: str
    trace_prompts: bool = False


@runtime_checkable
class Executor(Protocol):
    """Answers questions and stores each result as soon as it is answered.

    ``answers`` yields one :class:`StoredAnswer` per question it takes from ``questions``
    (:meth:`~hopkit.executors.shared_questions.SharedQuestions.next`, waiting while it says
    :data:`~hopkit.executors.shared_questions.WAIT`), in the order they finish, each already
    stored; closing the iterator stops handing out questions (those in flight are dropped,
    and a rerun redoes them).
    """

    #: questions answered at once.
    workers: int

    def answers(self, job: RunJob, questions: SharedQuestions) -> Iterator[StoredAnswer]: ...

    def evidence_advice(self) -> str | None:
        """What to change when the method keeps no evidence for most questions (None: it has no filter)."""
        ...
