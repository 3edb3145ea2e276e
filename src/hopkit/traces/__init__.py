"""Typed traces: the steps a method took on one question, collected on the side.

A method records :class:`Step` s (retrieve, reason, read, ...; each may name a parent
step) and :class:`Citation` s with :func:`record_step` and :func:`cite`; the runner
opens a :func:`collect_trace` block per question, like the usage block of
``hopkit.usage``, and stores the collected :class:`Trace` under :data:`TRACE_KEY` of
the result's trace, checked as JSON (:func:`stored_trace`). What each kind of step
holds is typed by its method's payload classes (:mod:`hopkit.traces.payload`), read
back with :meth:`Step.payload`. The JSON schema, the kinds of step and an example are
in ``docs/traces.md``.
"""

from hopkit.traces.collect import (PREVIOUS, cite, collect_trace, current_trace, note_prompt, record_step,
                                   recorded_by)
from hopkit.traces.records import KINDS, Citation, Step, TraceError
from hopkit.traces.stored import check_json, stored_trace
from hopkit.traces.trace import SCHEMA_VERSION, TRACE_KEY, Trace

__all__ = ["KINDS", "PREVIOUS", "SCHEMA_VERSION", "TRACE_KEY", "Citation", "Step", "Trace", "TraceError", "check_json",
           "cite", "collect_trace", "current_trace", "note_prompt", "record_step", "recorded_by", "stored_trace"]
