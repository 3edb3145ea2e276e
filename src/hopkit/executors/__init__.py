"""Executors: what answers a run's questions, threads of this process or actors of a Ray cluster.

``pipeline.run(executor="ray")`` (``hopkit run ... --executor ray``) sends the method, by
value, to Ray workers that rebuild it and store each answer themselves; the default,
``"threads"``, answers in this process. See docs/cluster.md.
"""

from hopkit.executors.answers import StoredAnswer, answer_one
from hopkit.executors.choice import ExecutorChoice, executor_choice
from hopkit.executors.protocol import Executor, RunJob
from hopkit.executors.threads import ThreadExecutor

__all__ = ["Executor", "ExecutorChoice", "RunJob", "StoredAnswer", "ThreadExecutor", "answer_one", "executor_choice"]
