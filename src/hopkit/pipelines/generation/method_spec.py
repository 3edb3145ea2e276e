"""Where earlier releases defined a method by value: it is the run plan now (:mod:`hopkit.pipelines.plan`).

``MethodSpec`` is :class:`~hopkit.pipelines.plan.RunPlan` under its earlier name.
"""

from hopkit.pipelines.plan import RetrievalSpec, RunPlan

MethodSpec = RunPlan

__all__ = ["MethodSpec", "RetrievalSpec", "RunPlan"]
