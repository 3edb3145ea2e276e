"""Questions answered by actors of a Ray cluster, each result stored by the actor that answered it.

Each actor rebuilds the method once from its :class:`~hopkit.pipelines.plan.RunPlan`
(warmed up), connects to the store, and then answers questions, storing each result
before it reports back. The driver hands an actor its next question as soon as it
reports, so a slow question holds up no other. An actor answers one question at a time,
or, when its workers wait on a model server (``cpus_per_worker`` below 1), as many at once
in threads as make up one CPU (``questions_per_actor``): 32 workers on 2 CPUs are 2
processes to start, not 32. Such an actor stores its threads' answers through one writer
thread (those finished together share a transaction) and holds one question more than it
has threads, so a thread that finishes starts the next question without waiting for the driver.

An actor that dies (its process killed, its node lost) costs only the questions it was
answering: they go back to the front of the queue for other actors, and a
new actor takes the dead one's place. So does an actor that answers nothing for longer than
``question_timeout`` (its process stopped, or hung in a native call): it is killed and
replaced. A question on which ``max_attempts`` actors died
is stored as failed with a :class:`~hopkit.errors.WorkerError`. The store's unique
(run, question) constraint keeps one row per question even when an actor dies between
storing its result and reporting it.
"""

from __future__ import annotations

import logging
import os
import time
from collections import Counter, deque
from typing import Any, Iterator, Sequence

from hopkit.errors import ConfigError, WorkerError
from hopkit.executors.answers import StoredAnswer, answer_and_store, answer_one, store_failure
from hopkit.executors.result_writer import Answered, StoredOnReturn
from hopkit.executors.protocol import RunJob
from hopkit.executors.shared_questions import SharedQuestions
from hopkit.executors.ray_cluster import alive_nodes, connect, forwarded_environment, joined_notice
from hopkit.records import Query
from hopkit.store.connection import mask_url

log = logging.getLogger(__name__)

# Seconds the driver waits for any answer before checking again (Ctrl-C is seen at once anyway).
POLL_SECONDS = 1.0
# Seconds a worker may take on one question before it is taken for hung, killed and replaced: far above
# what a question takes (a few minutes for MIGRES with an in-process 1.5B model on one CPU).
QUESTION_TIMEOUT_SECONDS = 1800.0


class QuestionWorker:
    """One Ray actor: the method rebuilt from its spec, and a connection to the store.

    Args:
        spec: the method, by value.
        database_url: the store every actor writes to.
        run_id: the run whose results it stores.
        trace_prompts: store each step's prompts in its trace.
        folder: the driver's working folder, entered when this node has it (configs in ``configs/``).
    """

    def __init__(self, spec: Any, database_url: str, run_id: str, trace_prompts: bool, folder: str,
                 answering_at_once: int = 1) -> None:
        from hopkit.store.connection import DBConnection
        from hopkit.store.store import Store

        if os.path.isdir(folder):
            os.chdir(folder)
        session_factory = DBConnection(database_url).get_session_factory()
        self.store = Store(session_factory)
        self.run_id = run_id
        self.trace_prompts = trace_prompts
        self.method = spec.build(session_factory)
        self.writer = StoredOnReturn(self.store, run_id) if answering_at_once > 1 else None

    def ready(self) -> dict[str, Any]:
        """Who this actor is, once its method is built: its process, and its method's evidence advice."""
        import ray

        advice = getattr(self.method, "evidence_filter", None)
        return {"pid": os.getpid(), "node": ray.get_runtime_context().get_node_id(),
                "evidence_advice": advice if isinstance(advice, str) and advice else None}

    def answer(self, query: Query) -> StoredAnswer:
        if self.writer is None:
            return answer_and_store(self.method, query, self.store, self.run_id, trace_prompts=self.trace_prompts)
        started = time.perf_counter()
        result, failure = answer_one(self.method, query, trace_prompts=self.trace_prompts)
        return self.writer.store(Answered(result, failure, time.perf_counter() - started))


class RayExecutor:
    """Answers a run's questions with ``workers`` actors on a Ray cluster.

    Args:
        spec: the run, by value (``pipeline.method_spec(top_k)``, a :class:`~hopkit.pipelines.plan.RunPlan`).
        database_url: the store's URL (PostgreSQL on a cluster of several nodes).
        address: the cluster (``"auto"``, ``"ray://host:10001"``, ``"host:6379"``); None starts
            Ray on this machine for this process.
        workers: actors answering at once; None: one per CPU of the cluster (``cpus_per_worker`` each).
        cpus_per_worker: the CPUs Ray reserves for each actor (below 1 for actors that wait on a
            model server).
        max_attempts: actors that may die on one question before it is stored as failed.
        replacements: new actors started in all after deaths; None: as many as ``workers``.
        start_seconds: how long an actor may take to build the method before it is given up.
        question_timeout: seconds an actor may take on one question; past it the actor is taken for hung
            (a stopped process, a hung native call), killed and replaced, and the question handed on
            (None: :data:`QUESTION_TIMEOUT_SECONDS`).
        forward_env: names or patterns of the driver's variables the workers get (None: every
            ``HOPKIT_*``, ``OPENAI_*`` and ``HF_*``; empty: none); see :func:`forwarded_environment`.
        questions_per_actor: workers that share one actor process, each a thread of it (None: as many
            as make up one CPU at ``cpus_per_worker``, so 1 from one CPU per worker up).
    """

    def __init__(self, spec: Any, database_url: str, *, address: str | None = None, workers: int | None = None,
                 cpus_per_worker: float = 1.0, max_attempts: int = 3, replacements: int | None = None,
                 start_seconds: float = 600.0, question_timeout: float | None = None,
                 forward_env: Sequence[str] | None = None, questions_per_actor: int | None = None) -> None:
        question_timeout = QUESTION_TIMEOUT_SECONDS if question_timeout is None else question_timeout
        if workers is not None and workers < 1:
            raise ConfigError(f"Ray executor: workers must be at least 1, got {workers}")
        if questions_per_actor is not None and questions_per_actor < 1:
            raise ConfigError(f"Ray executor: questions_per_actor must be at least 1, got {questions_per_actor}")
        if cpus_per_worker <= 0 or max_attempts < 1 or question_timeout <= 0:
            raise ConfigError(f"Ray executor: need cpus_per_worker > 0, max_attempts >= 1 and question_timeout > 0, "
                              f"got {cpus_per_worker}, {max_attempts} and {question_timeout}")
        if database_url.startswith("sqlite") and (":memory:" in database_url or database_url.rstrip("/") == "sqlite:"):
            raise ConfigError("Ray executor: an in-memory SQLite store cannot be shared with worker processes; "
                              "use a SQLite file (one node) or PostgreSQL")
        self.spec = spec
        self.database_url = database_url
        self.address = address
        self.cpus_per_worker = cpus_per_worker
        self.max_attempts = max_attempts
        self.replacements = replacements
        self.start_seconds = start_seconds
        self.question_timeout = question_timeout
        self.forward_env = None if forward_env is None else tuple(forward_env)
        self.questions_per_actor = questions_per_actor or max(1, int(1 / cpus_per_worker + 1e-9))
        self.started: list[dict[str, Any]] = []  # each worker's ready() report: its pid and node
        self._workers = workers
        self._advice: str | None = None

    @property
    def workers(self) -> int:
        """The actors this run starts (asking the cluster for its CPUs when not given)."""
        if self._workers is None:
            ray = connect(self.address)
            cpus = float(ray.cluster_resources().get("CPU", 1))
            self._workers = max(1, int(cpus // self.cpus_per_worker))
        return self._workers

    def evidence_advice(self) -> str | None:
        return self._advice

    def answers(self, job: RunJob, questions: SharedQuestions) -> Iterator[StoredAnswer]:
        if not questions:
            return
        ray = connect(self.address)
        self._refuse_sqlite_across_nodes(ray)
        variables = forwarded_environment(self.forward_env)
        if self.address is not None:
            log.warning(joined_notice(ray, self.address, [name for name in variables if name != "PYTHONPATH"],
                                      mask_url(self.database_url)))
        per_actor = min(self.questions_per_actor, self.workers)
        actor_class = ray.remote(max_restarts=0, max_task_retries=0)(QuestionWorker).options(
            num_cpus=self.cpus_per_worker * per_actor, max_concurrency=per_actor, runtime_env={"env_vars": variables})
        arguments = (self.spec, self.database_url, job.run_id, job.trace_prompts, os.getcwd(), per_actor)
        crew = _Crew(ray, actor_class, arguments, self.start_seconds, self.started, self.question_timeout, per_actor)
        again: deque[Query] = deque()  # questions whose worker died: still this driver's, handed out first
        deaths: Counter[str] = Counter()
        spare = self.workers if self.replacements is None else self.replacements
        try:
            for _ in range(-(-min(self.workers, len(questions)) // per_actor)):
                crew.start()
            actors = len(crew.live)
            while crew.answering or ((again or questions) and (crew.starting or crew.idle)):
                for actor in crew.idle:
                    query = again.popleft() if again else questions.next()
                    if not isinstance(query, Query):  # none left, or held by other drivers for now
                        break
                    crew.hand_out(actor, query)
                if not crew.waiting:  # every question left is another driver's for now
                    time.sleep(questions.look_again_seconds)
                    continue
                event = crew.next_event()
                if event is None:
                    continue
                actor, query, outcome = event
                if isinstance(outcome, StoredAnswer):
                    yield outcome
                elif isinstance(outcome, dict):
                    self._advice = self._advice or outcome["evidence_advice"]
                elif query is None:  # a worker that never started
                    if not crew.ever_ready:
                        raise WorkerError(f"a Ray worker could not build the method: {outcome}")
                    log.warning("a Ray worker could not start: %s", outcome)
                else:  # the worker died answering: the question goes to another, or fails at last
                    deaths[query.id] += 1
                    log.warning("the worker answering question %s died (%s); %d worker(s) left", query.id,
                                _first_line(outcome), len(crew.live) * per_actor)
                    if deaths[query.id] < self.max_attempts:
                        again.appendleft(query)
                    else:
                        yield store_failure(job.store, job.run_id, query, WorkerError(
                            f"{deaths[query.id]} worker(s) died answering it (last: {_first_line(outcome)})"))
                    if spare > 0 and (again or questions) and len(crew.live) < actors:
                        spare -= 1
                        crew.start()
                if (again or questions) and not crew.live:
                    raise WorkerError(f"every Ray worker of run {job.name} died and no new one could start; "
                                      f"{len(again) + len(questions)} question(s) were not answered: rerun to "
                                      "resume")
        finally:
            crew.stop()

    def _refuse_sqlite_across_nodes(self, ray: Any) -> None:
        nodes = alive_nodes(ray)
        if self.database_url.startswith("sqlite") and nodes > 1:
            raise ConfigError(f"this Ray cluster has {nodes} nodes, and workers on each would write to the one SQLite "
                              f"file {self.database_url}: SQLite is not shared across machines. Run on PostgreSQL "
                              "(--db postgresql+psycopg://USER:PASSWORD@HOST:5432/DB, or $HOPKIT_DB_URL) reachable "
                              "from every node")


class _Crew:
    """The run's actors: those starting (building the method), idle, and answering a question."""

    def __init__(self, ray: Any, actor_class: Any, arguments: tuple[Any, ...], start_seconds: float,
                 started: list[dict[str, Any]], question_timeout: float, per_actor: int = 1) -> None:
        self.ray = ray
        self.per_actor = per_actor
        self.started = started
        self.question_timeout = question_timeout
        self.actor_class = actor_class
        self.arguments = arguments
        self.start_seconds = start_seconds
        # ref -> actor, question (None: start), when handed out, seconds it may take
        self.calls: dict[Any, tuple[Any, Query | None, float, float]] = {}
        self.live: list[Any] = []
        self.ever_ready = False
        self._idle: list[Any] = []  # an actor once for each question it could take now
        self._orphans: deque[tuple[Any, Query, BaseException]] = deque()  # a lost actor's other questions
        self._finished: deque[Any] = deque()  # calls found finished, not yet reported

    @property
    def starting(self) -> bool:
        return any(query is None for _, query, _, _ in self.calls.values())

    @property
    def answering(self) -> bool:
        return bool(self._orphans) or any(query is not None for _, query, _, _ in self.calls.values())

    @property
    def waiting(self) -> bool:
        """Whether any event is to come: a call in flight, or a lost actor's question to report."""
        return bool(self.calls) or bool(self._orphans)

    @property
    def idle(self) -> list[Any]:
        return list(self._idle)

    def start(self) -> None:
        actor = self.actor_class.remote(*self.arguments)
        self.live.append(actor)
        self.calls[actor.ready.remote()] = (actor, None, time.monotonic(), self.start_seconds)

    def hand_out(self, actor: Any, query: Query) -> None:
        """Give ``actor`` a question; one handed to an actor whose every thread is busy waits for one, so
        it may take two question timeouts."""
        self._idle.remove(actor)
        busy = sum(1 for holder, query_held, _, _ in self.calls.values() if holder is actor and query_held is not None)
        allowed = self.question_timeout * (2 if busy >= self.per_actor else 1)
        self.calls[actor.answer.remote(query)] = (actor, query, time.monotonic(), allowed)

    def next_event(self) -> tuple[Any, Query | None, Any] | None:
        """The next call to finish: (actor, question or None for a start, its result or error); None
        when nothing finished within :data:`POLL_SECONDS` (a start past its time is then given up, and an
        actor silent past the question timeout is killed: its question comes back as its death)."""
        if self._orphans:
            return self._orphans.popleft()
        finished = self._next_finished()
        if finished is None:
            return self._give_up_slow_starts() or self._kill_silent_workers()
        actor, query, _, _ = self.calls.pop(finished)
        try:
            result = self.ray.get(finished)
        except _ACTOR_DEATHS(self.ray) as died:
            self._drop(actor, died)
            return actor, query, (_cause(died) if query is None else died)
        if query is None:
            self.ever_ready = True
            self.started.append(result)
            self._idle.extend([actor] * (self.per_actor + (1 if self.per_actor > 1 else 0)))
        else:
            self._idle.append(actor)
        return actor, query, result

    def _next_finished(self) -> Any | None:
        """A call that has finished: one found finished beside the last one, else the first to finish
        within :data:`POLL_SECONDS` (None: none did), so that a busy run asks Ray once for several."""
        while self._finished:
            ref = self._finished.popleft()
            if ref in self.calls:  # not given up since
                return ref
        ready, pending = self.ray.wait(list(self.calls), num_returns=1, timeout=POLL_SECONDS)
        if not ready:
            return None
        if pending:
            also, _ = self.ray.wait(pending, num_returns=len(pending), timeout=0)
            self._finished.extend(also)
        return ready[0]

    def stop(self) -> None:
        for actor in self.live:
            self.ray.kill(actor)
        self.live.clear()

    def _give_up_slow_starts(self) -> tuple[Any, None, str] | None:
        now = time.monotonic()
        for ref, (actor, query, since, allowed) in list(self.calls.items()):
            if query is None and now - since > allowed:
                del self.calls[ref]
                self._drop(actor, WorkerError("its worker never started"))
                self.ray.kill(actor)
                return actor, None, (f"not ready within {self.start_seconds:.0f} s (the cluster may lack the CPUs "
                                     "to place it)")
        return None

    def _kill_silent_workers(self) -> tuple[Any, Query, WorkerError] | None:
        now = time.monotonic()
        for ref, (actor, query, since, allowed) in list(self.calls.items()):
            if query is not None and now - since > allowed:
                del self.calls[ref]
                silent = WorkerError(f"it answered nothing for {now - since:.0f} s, past the question timeout of "
                                     f"{self.question_timeout:g} s (a stopped or hung process); it was killed and "
                                     "replaced")
                self._drop(actor, WorkerError("its worker was killed: another of its questions went unanswered past "
                                              f"the question timeout of {self.question_timeout:g} s"))
                self.ray.kill(actor, no_restart=True)
                return actor, query, silent
        return None

    def _drop(self, actor: Any, why: BaseException) -> None:
        """Forget a lost actor; the other questions it held come back, one event each, as lost with it."""
        if actor in self.live:
            self.live.remove(actor)
        self._idle = [other for other in self._idle if other is not actor]
        for ref, (holder, query, _, _) in list(self.calls.items()):
            if holder is actor:
                del self.calls[ref]
                if query is not None:
                    self._orphans.append((actor, query, why))


def _ACTOR_DEATHS(ray: Any) -> tuple[type[BaseException], ...]:
    errors = ray.exceptions
    return (errors.RayActorError, errors.WorkerCrashedError, errors.NodeDiedError, errors.ObjectLostError,
            errors.OwnerDiedError)


def _first_line(error: BaseException) -> str:
    lines = [line for line in str(error).splitlines() if line.strip()]
    return f"{type(error).__name__}: {lines[0] if lines else ''}"[:300]


def _cause(error: BaseException) -> str:
    """The error an actor's constructor raised, as its last traceback line says."""
    lines = [line.strip() for line in str(error).splitlines() if line.strip()]
    raised = [line for line in lines if "Error:" in line and not line.startswith(("File ", "ray."))]
    return (raised[-1] if raised else _first_line(error))[:800]
