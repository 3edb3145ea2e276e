"""The ``scaling`` section of docs/benchmarks.md and its plot, from benchmarks/results/scaling.json."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from benchmarks._report import markdown_table


def plot(saved: dict[str, Any], path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    methods = sorted({c["method"] for c in saved["cells"]})
    if not methods:
        return
    figure, axes = plt.subplots(1, len(methods), figsize=(5.5 * len(methods), 4.2), squeeze=False)
    for axis, method in zip(axes[0], methods):
        cells = [c for c in saved["cells"] if c["method"] == method]
        for executor, marker in (("threads", "o"), ("ray", "s")):
            shown = sorted((c for c in cells if c["executor"] == executor), key=lambda c: c["workers"])
            if shown:
                axis.plot([c["workers"] for c in shown], [c["rate"] for c in shown], marker=marker,
                          label=f"{executor} (whole run)")
        ideal = sorted({(c["workers"], c["ideal_rate"]) for c in cells if c["executor"] == "threads"})
        if ideal:
            axis.plot([w for w, _ in ideal], [r for _, r in ideal], "k--", label="ideal: workers / (calls × delay)")
        axis.set_xscale("log", base=2)
        axis.set_yscale("log", base=2)
        axis.set_xlabel("workers")
        axis.set_ylabel("questions per second")
        delay = cells[0]["delay"]
        axis.set_title(f"{method}: {cells[0]['questions']} questions, server delay {delay * 1000:.0f} ms")
        axis.grid(True, which="both", alpha=0.3)
        axis.legend(fontsize=8)
    figure.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    figure.savefig(path, dpi=110)
    plt.close(figure)


def section(saved: dict[str, Any], image: Path) -> str:
    rows = [f"| {c['method']} | {c['executor']} | {c['workers']} | {c['calls_per_question']} | {c['seconds']} | "
            f"{c.get('until_first_answer')} | {c['rate']} | {c['steady_rate']} | {c['ideal_rate']} | "
            f"{100 * c['rate'] / c['ideal_rate']:.0f}% | {c['failed']} |"
            for c in sorted(saved["cells"], key=lambda c: (c["method"], c["executor"], c["workers"]))]
    overhead = [f"| {o['method']} | {o['calls_per_question']} | {o['ms_per_question']} |" for o in saved["overhead"]]
    writes = [f"| {w['writers']} | {w['results']} | {w['seconds']} | {w['per_second']} |" for w in saved["writes"]]
    alone = [one_worker_row(saved, o) for o in saved["overhead"]]
    return "\n\n".join([
        "## Scaling: workers, threads and Ray, against a server with a fixed delay",
        f"Command: `{saved.get('command', '')}` (cells saved in `benchmarks/results/scaling.json`).",
        "A loopback OpenAI-compatible server answers every request after a fixed delay; the ideal rate is "
        "workers / (calls per question × delay). A run's seconds include starting its workers (Ray: new "
        "processes, each rebuilding the method); \"steady\" is the rate between the first and the last answer. "
        "Store: PostgreSQL on this machine; 2 cores.",
        f"![questions per second against workers]({image})",
        markdown_table(["method", "executor", "workers", "calls/q", "seconds", "s to first answer", "q/s",
                        "steady q/s", "ideal q/s", "of ideal", "failed"], rows),
        "hopkit's own cost per question (one worker, a server that answers at once):",
        markdown_table(["method", "calls/q", "ms per question"], overhead),
        "One worker: the ideal rate less hopkit's own cost, 1 / (calls × delay + cost per question), against "
        "what the one-worker runs measured:",
        markdown_table(["method", "predicted q/s", "threads q/s", "Ray q/s"], [row for row in alone if row]),
        "The store's write rate (PostgreSQL, one result per transaction, each writer a thread):",
        markdown_table(["writers", "results", "seconds", "results/s"], writes),
    ])


def one_worker_row(saved: dict[str, Any], overhead: dict[str, Any]) -> str:
    """A method's one-worker rate as its cost per question predicts it, beside the measured ones."""
    single = {c["executor"]: c for c in saved["cells"] if c["method"] == overhead["method"] and c["workers"] == 1}
    if not single:
        return ""
    delay = next(iter(single.values()))["delay"]
    predicted = 1 / (overhead["calls_per_question"] * delay + overhead["ms_per_question"] / 1000)
    measured = [str(single[e]["rate"]) if e in single else "" for e in ("threads", "ray")]
    return f"| {overhead['method']} | {predicted:.2f} | {' | '.join(measured)} |"
