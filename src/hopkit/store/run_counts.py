"""How far each run got: its answered and failed questions, and the fingerprint of its dataset now."""

from __future__ import annotations

from typing import Sequence

from sqlalchemy import and_, case, func, select
from sqlalchemy.orm import Session

from hopkit.store import convert
from hopkit.store.models import DatasetRow, QueryRow, ResultRow, RunRow
from hopkit.store.records import RunInfo


def run_infos(session: Session, rows: Sequence[RunRow]) -> list[RunInfo]:
    """The records of these runs, with their result counts and staleness as stored now.

    A run on its current corpus counts only the results of its dataset's questions (an older
    import could leave others); a stale run's questions may be gone, so all its results count.
    """
    ids = [row.id for row in rows]
    counts: dict[str, tuple[int, int]] = {}
    if ids:
        counted = (select(ResultRow.run_id,
                          func.sum(case((ResultRow.error.is_(None), 1), else_=0)),
                          func.sum(case((ResultRow.error.is_not(None), 1), else_=0)))
                   .where(ResultRow.run_id.in_(ids)).group_by(ResultRow.run_id))
        counts = {rid: (int(ok or 0), int(bad or 0)) for rid, ok, bad in session.execute(counted)}
        on_current_corpus = and_(DatasetRow.name == RunRow.dataset,
                                 DatasetRow.fingerprint == RunRow.dataset_fingerprint)
        of_its_questions = (counted.join(RunRow, RunRow.id == ResultRow.run_id)
                            .join(DatasetRow, on_current_corpus)
                            .join(QueryRow, and_(QueryRow.dataset_id == DatasetRow.id,
                                                 QueryRow.id == ResultRow.query_id)))
        matched = {rid: (int(ok or 0), int(bad or 0)) for rid, ok, bad in session.execute(of_its_questions)}
        current_runs = session.scalars(select(RunRow.id).join(DatasetRow, on_current_corpus)
                                       .where(RunRow.id.in_(ids)))
        counts.update({rid: matched.get(rid, (0, 0)) for rid in current_runs})
    names = sorted({row.dataset for row in rows})
    current: dict[str, str] = {}
    if names:
        fingerprints = select(DatasetRow.name, DatasetRow.fingerprint).where(DatasetRow.name.in_(names))
        current = {name: fingerprint for name, fingerprint in session.execute(fingerprints)}
    return [convert.to_run_info(row, *counts.get(row.id, (0, 0)), current.get(row.dataset)) for row in rows]
