"""``hopkit run``: a pipeline config over a stored dataset, and what the run says before and after."""

from __future__ import annotations

import argparse
import functools
import sys
from pathlib import Path
from typing import Any, Callable, Mapping

from hopkit.cli.numbers import integer
from hopkit.cli.store_access import existing_factory
from hopkit.cli.executor import add_executor_arguments, executor_fields
from hopkit.cli.help_texts import KEEP_FAILED_HELP, llm_help, retrieval_help
from hopkit.cli.console import log_kept, run_log
from hopkit.config import load_yaml, named_config_path, named_configs
from hopkit.errors import DETERMINISTIC_FAILURES, ConfigError, UnknownNameError
from hopkit.executors.choice import ExecutorChoice
from hopkit.methods.registry import method_names
from hopkit.pipelines.assembly import Changes, assemble, refuse_unused_retrieval
from hopkit.pipelines.runner import RunStart
from hopkit.store.store import Store
from hopkit.terminal import lookalike_warnings, name_clash, name_problem, printable

# Above this share of the answering time spent in hopkit itself, a run's summary says so.
OWN_TIME_NOTICE = 0.05
SAME_AGAIN = ("decoding is greedy, so a rerun asks again and gets the same reply (--keep-failed leaves it stored): "
              "another model or prompt is what changes it")


def named(option: str, value: str | None) -> str | None:
    """A ``--name`` value as given, refused when blank (it would silently fall back to a default) or when a
    person could not tell it from another name (:func:`~hopkit.terminal.name_problem`)."""
    if value is not None and not value.strip():
        raise ConfigError(f"{option}: a name must not be empty or blank; leave the option out for the default")
    problem = "" if value is None else name_problem(value)
    if problem:
        raise ConfigError(f"{option}: {problem}")
    return value


def check_new_name(kind: str, where: str, name: str, stored: list[str], *, also: str = "") -> None:
    """Before anything runs: refuse a new ``kind`` name ("run", "dataset") that is a stored one written with other
    code points (:func:`~hopkit.terminal.name_clash`), and warn of stored names it differs from only in case.

    Args:
        where: the option or config field the name came from, for the message.
        also: said after each warning.

    Raises:
        ConfigError: naming ``where`` and the stored name.
    """
    problem = name_clash(kind, name, stored)
    if problem:
        raise ConfigError(f"{where}: {problem}")
    for warning in lookalike_warnings(kind, name, stored):
        sys.stderr.write(f"hopkit: warning: {warning}{also}\n")


def add_arguments(run: argparse.ArgumentParser) -> None:
    run.add_argument("config", help="a shipped pipeline config by name (" + ", ".join(named_configs("pipelines"))
                                    + "), a method by name with its defaults (" + ", ".join(method_names())
                                    + "), or a YAML file with method (or _target_) and options")
    run.add_argument("--dataset", help="stored dataset (overrides the config)")
    run.add_argument("--limit", type=integer(minimum=0), help="only the first N questions")
    run.add_argument("--top-k", type=integer(), help="paragraphs per retrieval (overrides the config)")
    run.add_argument("--llm", help=llm_help() + " (overrides the config)")
    run.add_argument("--retrieval", help=retrieval_help() + " (overrides the config; the run id follows it)")
    run.add_argument("--name", help="the run's name in tables and plots (overrides the config's name)")
    run.add_argument("--batch-size", type=integer(), help="questions in flight at once (overrides the config's "
                                                          "batch_size, default 10); only a model server answers "
                                                          "several at once, an in-process model answers one at a time")
    add_executor_arguments(run)
    run.add_argument("--quiet", action="store_true", help="no progress bar")
    run.add_argument("--trace-prompts", action="store_true",
                     help="keep every model call's prompt in the trace (shown by the HTML report; large)")
    run.add_argument("--keep-failed", action="store_true", help=KEEP_FAILED_HELP)


def pipeline_config(argument: str) -> tuple[dict[str, Any], str]:
    """The pipeline config ``hopkit run`` was given, and its source for messages: a YAML file, the
    name of a shipped pipeline config, or the name of a method (its defaults).

    Raises:
        ConfigError: a path that does not exist (saying so when a shipped config has its name).
        UnknownNameError: a name no config and no method has (the message lists both).
    """
    path = Path(argument)
    if path.suffix in (".yaml", ".yml") or len(path.parts) > 1:
        if not path.exists() and path.stem in named_configs("pipelines"):
            raise ConfigError(f"{path}: config file not found; hopkit ships a pipeline config named "
                              f"{path.stem!r}: run `hopkit run {path.stem} ...` to use it from any folder")
        return load_yaml(path), str(path)
    if argument in named_configs("pipelines"):
        path = named_config_path("pipelines", argument)
        return load_yaml(path), str(path)
    if argument.lower() in method_names():
        return {"method": argument.lower(), "name": argument.lower()}, f"method {argument.lower()!r}"
    raise UnknownNameError("pipeline config or method", argument,
                           sorted({*named_configs("pipelines"), *method_names()}))


def _announce(pipeline: Any, executor: ExecutorChoice) -> Callable[[RunStart], None]:
    def first_line(start: RunStart) -> None:
        left = start.total_queries - start.already_done
        at_once = f"{start.workers} at a time"
        if executor.kind == "ray":
            at_once += f" on Ray ({start.workers} worker(s))"
        elif pipeline.workers() < pipeline.batch_size:
            at_once += (f" (an in-process model answers one question at a time; batch_size {pipeline.batch_size} "
                        "applies to a model server)")
        kept = f" ({start.kept_failed} of them failed, kept by --keep-failed)" if start.kept_failed else ""
        print(f"run {printable(start.name)} ({start.run_id}) on {printable(start.dataset)}: "
              f"{start.total_queries} question(s), {start.already_done} already done{kept}, {left} to answer, "
              f"{at_once}", flush=True)
    return first_line


def cmd_run(args: argparse.Namespace) -> int:
    named("--name", args.name)
    spec, source = pipeline_config(args.config)
    store = functools.cache(lambda: existing_factory(args))  # opened once needed: a wrong option is said first
    changes = Changes(dataset=args.dataset, llm=args.llm, name=args.name, batch_size=args.batch_size,
                      retrieval=args.retrieval, executor=executor_fields(args), top_k=args.top_k)
    assembly = assemble(spec, source, store, changes)
    if assembly.threshold:
        print(f"calibrated threshold: {printable(assembly.threshold)}", flush=True)
    check_new_name("run", "--name" if args.name else f"{source}: field 'name'", assembly.config.name,
                   Store(store()).run_names())
    refuse_unused_retrieval(args.retrieval, [assembly], source)
    pipeline = assembly.pipeline
    with run_log("run") as log_file:
        outcome = assembly.run(limit=args.limit, progress=not args.quiet, trace_prompts=args.trace_prompts,
                               on_start=_announce(pipeline, assembly.executor), keep_failed=args.keep_failed)
    print(f"run {printable(outcome['name'])} ({outcome['run_id']}): {outcome['total_queries']} questions, "
          f"{outcome['already_done']} already done, {outcome['finished']} answered now, {outcome['failed']} failed"
          + (f", {outcome['kept_failed']} failed before and kept" if outcome.get("kept_failed") else "")
          + (f", {outcome['answered_elsewhere']} answered by another driver of the same run"
             if outcome.get("answered_elsewhere") else ""))
    _warn_without_evidence(outcome)
    note_own_time(outcome)
    return run_exit_code(outcome, log_file)


def note_own_time(outcome: Mapping[str, Any]) -> None:
    """Say so when hopkit's own work took more than :data:`OWN_TIME_NOTICE` of the time spent answering."""
    share = outcome.get("own_share", 0.0)
    if share > OWN_TIME_NOTICE:
        print(f"hopkit's own work (retrieval, prompts, parsing, traces, the store) took {share:.0%} of the time "
              f"spent answering, more than {OWN_TIME_NOTICE:.0%}: the toolkit, not only the model, sets this run's pace")


def _warn_without_evidence(outcome: Mapping[str, Any]) -> None:
    answered, bare = outcome["finished"], outcome.get("without_evidence", 0)
    if outcome.get("evidence_advice") and answered and bare > answered / 2:
        sys.stderr.write(f"hopkit: warning: {bare} of the {answered} question(s) answered now kept no paragraph: "
                         f"{outcome['evidence_advice']}\n")


def run_exit_code(outcome: Mapping[str, Any], log_file: Path | None = None) -> int:
    """0 when the run holds answers (some questions may have failed: they are counted on stderr, with what a
    rerun can change), 1 when it holds none and every question attempted failed."""
    failed, attempted = outcome["failed"], outcome["failed"] + outcome["finished"]
    if not failed:
        return 0
    kinds = dict(outcome.get("failures") or {})
    parts = []
    for kind, count in sorted(kinds.items(), key=lambda item: -item[1]):
        why = (f"{DETERMINISTIC_FAILURES[kind]}; {SAME_AGAIN}" if kind in DETERMINISTIC_FAILURES
               else "a rerun of the same command retries it")
        parts.append(f"{count} {kind} ({why})")
    detail = (": " + ", ".join(parts)) if parts else ""
    first = f". First error: {outcome['first_error']}" if outcome.get("first_error") else ""
    where = f". Every failure is in {log_file}" if log_kept(log_file) else ""
    held = outcome["already_done"] - outcome.get("kept_failed", 0) + outcome["finished"]
    if held == 0:
        sys.stderr.write(f"hopkit: error: nothing was answered: all {failed} question(s) attempted failed{detail}"
                         f"{first}{where}\n")
        return 1
    sys.stderr.write(f"hopkit: warning: {failed} of {attempted} question(s) attempted failed{detail}; the run holds "
                     f"{held} answer(s), failed questions are stored as failed{first}{where}\n")
    return 0
