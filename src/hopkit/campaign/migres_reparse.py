"""MIGRES questions on which the current Query Generator parser would ask other queries.

A fix of :func:`hopkit.methods.migres.responses.parse_queries` changes the queries some
stored responses yield; where that changes the queries MIGRES asks (the first 3 new ones
of a response), the question ran on the old reading. This lists them for every
MIGRES run of the bench store. With ``--forget`` it removes their results from the store
and from the run's saved file, so that rerunning the run's qa_bench command answers them
again with the current parser (the other questions are kept)::

    .venv/bin/hopkit campaign reparse-migres             # list
    .venv/bin/hopkit campaign reparse-migres --forget    # then rerun each run's qa_bench command
"""

from __future__ import annotations

import argparse
import copy
from typing import Any, Iterator, Mapping

from hopkit.campaign.saved_runs import open_bench_store, save
from hopkit.errors import ParseError
from hopkit.methods.migres.memory import Memory
from hopkit.methods.migres.responses import parse_queries
from hopkit.methods.migres.steps import MIGRESQueries, migres_payload
from hopkit.store.store import Store
from hopkit.traces import Trace


def query_steps(trace: Mapping[str, Any]) -> Iterator[MIGRESQueries]:
    """The Query Generator's steps of a MIGRES trace."""
    for step in Trace.from_result_trace(trace).steps:
        payload = migres_payload(step)
        if isinstance(payload, MIGRESQueries):
            yield payload


def asked_differently(question: str, trace: Mapping[str, Any], max_new_queries: int) -> bool:
    """Whether the current parser would have MIGRES ask other queries in any of the question's rounds.

    Each round is replayed on the memory of the queries the run asked before it (the
    question, then each round's new queries): the current reading of the round's last
    response gives the first ``max_new_queries`` not asked before, as the run's loop takes
    them. Whether ``max_tokens`` cut the response is not stored, so the reading with either
    answer that matches the run counts as the same.
    """
    memory = Memory()
    memory.ask([question])
    for step in query_steps(trace):
        generations = step.generations
        used = list(step.queries)
        if generations:
            readings = [_first_new(memory, generations[-1], cut_short, max_new_queries) for cut_short in (False, True)]
            if used not in readings:
                return True
        memory.ask(used)
    return False


def _first_new(memory: Memory, response: str, cut_short: bool, max_new_queries: int) -> list[str]:
    try:
        queries = parse_queries(response, cut_short=cut_short)
    except ParseError:
        return []
    return copy.deepcopy(memory).ask_at_most(queries, max_new_queries)[0]


def affected_questions(store: Store, run_id: str, max_new_queries: int) -> list[str]:
    """Ids of the run's answered questions on which the current parser would ask other queries."""
    texts = {query.id: query.text.strip() for query in store.queries(store.run(run_id).dataset)}
    return [result.query_id for result in store.results(run_id)
            if result.ok and asked_differently(texts[result.query_id], result.trace, max_new_queries)]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--forget", action="store_true",
                        help="remove the affected results (store and saved file) so that a rerun answers them again")
    args = parser.parse_args(argv)
    store = open_bench_store()
    for run in store.runs():
        if not run.method.startswith("migres"):
            continue
        affected = affected_questions(store, run.run_id, int(run.config.get("max_new_queries", 3)))
        print(f"{run.name} ({run.run_id}): {len(affected)} of {run.finished} questions would ask other queries"
              + (f": {', '.join(affected)}" if affected else ""))
        if args.forget and affected:
            store.forget_results(run.run_id, affected)
            print(f"  forgotten; saved {save(store, run.run_id)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
