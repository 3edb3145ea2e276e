"""Child process of the resume test: records results in a loop until it is killed.

Usage: python store_resume_writer.py <db-url> <run-id>

After each committed result it prints the question's index, so the parent
knows which results must have survived the SIGKILL it sends midway.
"""

from __future__ import annotations

import sys

from hopkit.store import DBConnection, QueryResult, Store
from hopkit.usage import ComponentUsage, Usage

MANY = 1_000_000


def expected_result(index: int, *, retried: bool = False) -> QueryResult:
    """The result the writer records for question ``index`` (every 4th one fails)."""
    failed = index % 4 == 3 and not retried
    return QueryResult(
        query_id=f"q{index}",
        prediction="" if failed else f"answer {index}",
        chunk_ids=(index, index + 1),
        trace={"index": index, "hops": [{"query": f"hop {index}", "ids": [index]}]},
        usage=Usage(index / 4, {"model": ComponentUsage(index % 3, 0.0, index % 3, index / 8, prompt_tokens=10 * index,
                                                        cached_prompt_tokens=index // 2, completion_tokens=index),
                                "retrieval": ComponentUsage(1, index / 16)}),
        error=f"RuntimeError: question {index} failed" if failed else None,
    )


def main(url: str, run_id: str) -> None:
    store = Store(DBConnection(url).get_session_factory())
    for index in range(MANY):
        store.record_result(run_id, expected_result(index))
        sys.stdout.write(f"{index}\n")
        sys.stdout.flush()


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
