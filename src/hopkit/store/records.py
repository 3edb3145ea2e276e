"""The records the store takes and gives back about runs and their results."""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Mapping

from hopkit.errors import ConfigError, StoreError, UsageError
from hopkit.store.storable import name_too_long, storable_json, storable_text
from hopkit.usage import Usage

RUN_ID_LENGTH = 16


def canonical_json(value: Any, *, what: str) -> str:
    """Serialise ``value`` to JSON with sorted keys and no insignificant spaces.

    Args:
        value: a JSON-serialisable value (tuples become lists).
        what: what ``value`` is, for the error message.

    Returns:
        The canonical JSON text: equal values give equal text.

    Raises:
        ConfigError: if ``value`` holds something JSON cannot represent
            (an object, a set, NaN or infinity).
    """
    try:
        return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False,
                          allow_nan=False)
    except (TypeError, ValueError) as exc:
        raise ConfigError(
            f"{what} is not JSON-serialisable ({exc}); use only strings, numbers, booleans, "
            "None, lists and mappings with string keys"
        ) from exc


@dataclass(frozen=True)
class RunSpec:
    """What identifies a run: the method, the dataset and the full configuration.

    ``name`` is a label for people; it does not enter the run id, so the same
    configuration under a new name resumes the old run. Texts are kept as the store will
    hold them (:mod:`hopkit.store.storable`), so the id hashes what is stored.
    """

    name: str
    method: str
    dataset: str
    config: Mapping[str, Any]

    def __post_init__(self) -> None:
        for label in ("name", "method", "dataset"):
            if not isinstance(getattr(self, label), str) or not getattr(self, label).strip():
                raise ConfigError(f"RunSpec.{label} must be a non-empty string, "
                                  f"got {getattr(self, label)!r}")
            too_long = name_too_long(getattr(self, label))
            if too_long:
                raise ConfigError(f"the run's {label} {too_long}; choose a shorter one")
            object.__setattr__(self, label, storable_text(getattr(self, label)))
        canonical_json(dict(self.config), what=f"the configuration of run {self.name!r}")
        storable = storable_json(dict(self.config))
        if storable != self.config:
            object.__setattr__(self, "config", storable)

    @property
    def canonical_config(self) -> str:
        """The canonical JSON of ``{method, dataset, config}`` that the run id hashes."""
        payload = {"method": self.method, "dataset": self.dataset, "config": dict(self.config)}
        return canonical_json(payload, what=f"the configuration of run {self.name!r}")

    @property
    def run_id(self) -> str:
        """First 16 hex digits of the SHA-256 of :attr:`canonical_config`."""
        digest = hashlib.sha256(self.canonical_config.encode("utf-8")).hexdigest()
        return digest[:RUN_ID_LENGTH]


@dataclass(frozen=True)
class RunInfo:
    """A stored run and how far it got.

    ``finished`` counts questions with a successful result, ``failed`` those
    whose latest attempt raised (they are retried when the run resumes).
    ``dataset_fingerprint`` is the fingerprint of the corpus the run was
    computed on, ``current_fingerprint`` that of the dataset stored under the
    same name now (``None`` if no such dataset is stored). When they differ the
    run is *stale*: its results hold paragraph ids of a replaced corpus and
    must not be scored against the current one.
    """

    run_id: str
    name: str
    method: str
    dataset: str
    config: Mapping[str, Any]
    created_at: datetime
    finished: int = 0
    failed: int = 0
    dataset_fingerprint: str = ""
    current_fingerprint: str | None = ""

    @property
    def stale(self) -> bool:
        """True when the run's dataset was re-ingested with other content since it ran."""
        return self.current_fingerprint != self.dataset_fingerprint

    @property
    def stale_reason(self) -> str:
        """Why the run cannot be scored on its dataset as stored now (``""`` if it can)."""
        if not self.stale:
            return ""
        ran_on = f"corpus {self.dataset_fingerprint[:12]}"
        if self.current_fingerprint is None:
            now = f"dataset {self.dataset!r} is no longer stored"
        else:
            now = (f"dataset {self.dataset!r} was re-ingested since (now corpus "
                   f"{self.current_fingerprint[:12]})")
        return (f"run {self.name!r} ({self.run_id}) is stale: it ran on {ran_on}, but {now}, so "
                "its results point into a corpus that is gone; rerun its config to score it "
                "on the current corpus (or re-ingest the old file to score the old results)")


@dataclass(frozen=True)
class QueryResult:
    """What a run produced for one question.

    ``error`` is ``None`` on success; otherwise it holds the error text and
    ``prediction`` is usually empty. ``trace`` is the method's trace and must
    be JSON-serialisable. ``usage`` is what the question cost: tokens, its wall
    time (``usage.total_seconds``) and calls and seconds per component (model,
    retrieval, judges), failed attempts included.
    """

    query_id: str
    prediction: str
    chunk_ids: tuple[int, ...] = ()
    trace: Mapping[str, Any] = field(default_factory=dict)
    usage: Usage = field(default_factory=Usage)
    error: str | None = None

    @property
    def ok(self) -> bool:
        """True when the question was answered without an error."""
        return self.error is None

    def __post_init__(self) -> None:
        if not isinstance(self.query_id, str) or not self.query_id:
            raise StoreError(f"QueryResult.query_id must be a non-empty string, "
                              f"got {self.query_id!r}")
        if not isinstance(self.usage, Usage):
            raise StoreError(f"QueryResult.usage of question {self.query_id!r} must be a "
                             f"hopkit.usage.Usage, got {type(self.usage).__name__}")
        try:
            self.usage.to_dict()
        except UsageError as exc:
            raise StoreError(f"QueryResult.usage of question {self.query_id!r}: {exc}") from exc
