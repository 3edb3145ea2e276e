"""benchmarks/report_bench.py's synthetic store: its traces read through each method's payload types, so the
report draws them with the methods' templates, not as JSON."""

from __future__ import annotations

import random
from types import ModuleType
from typing import Callable

import pytest

from hopkit.methods.registry import entries
from hopkit.records import Query
from hopkit.traces import Trace

pytestmark = pytest.mark.unit


def test_every_synthetic_step_reads_as_its_methods_payload(load_benchmark: Callable[[str], ModuleType]) -> None:
    synthetic = load_benchmark("report_bench")
    query = Query("q", "Who founded Velmora Ironworks?", ("Ada Quill",), (1, 2))
    for _, method, _, make, _ in synthetic.RUNS:
        steps = Trace.from_result_trace(make(random.Random(0), query, list(range(6)), 40, "Ada Quill")).steps
        assert steps and all(entries()[method].payload(step) is not None for step in steps), method
