"""What the quickstart's table means, in plain words, for the lines printed under it.

With the embedded default model (SmolLM2-135M) the answer metrics are near 0 whatever
the method: the model is too small to compose a two-hop answer, so the table measures
the model, not the methods. The notes say so, point at the retrieval columns (which
do show the methods apart), and name the command that gives a real comparison: the
same quickstart with a 1.5B model from the Hugging Face Hub.
"""

from __future__ import annotations

from collections.abc import Sequence

from hopkit.evaluation.aggregate import RunSummary

#: The quickstart's default LLM config: the 135M model embedded in hopkit.
TINY_LLM = "smollm2"
#: The packaged LLM config of a model large enough to compare the methods with (on the Hub).
COMPARISON_LLM = "qwen2.5-1.5b-instruct"
COMPARISON_COMMAND = f"hopkit quickstart --llm {COMPARISON_LLM}"


def reading_notes(summaries: Sequence[RunSummary], llm: str) -> list[str]:
    """Lines that say what the quickstart's numbers mean and what to run next.

    Args:
        summaries: the quickstart's runs, as in its table.
        llm: the LLM config name or ``hf://`` file the runs used.

    Returns:
        The lines, without trailing newlines (the first is a heading).
    """
    best_em = max((s.metrics["em"].mean for s in summaries if "em" in s.metrics), default=0.0)
    questions = max((s.n_questions for s in summaries), default=0)
    recall = [f"{s.name} {s.metrics['paragraph_recall'].mean:.0%}" for s in summaries
              if "paragraph_recall" in s.metrics]
    lines = ["How to read this table:"]
    if llm == TINY_LLM:
        lines += [
            "- The model is SmolLM2-135M, the 135-million-parameter model embedded in hopkit so that this "
            "runs offline in minutes. It is far too small to combine two facts into an answer: EM and F1 "
            f"near 0 (best EM here {best_em:.0%}) are expected, and they measure the model, not the methods.",
        ]
    else:
        lines += [
            f"- EM is the share of the {questions} questions answered exactly, F1 the word overlap with the "
            "gold answer; each \u00b1 is half a 95% interval, so with this few questions a difference "
            "smaller than it may be chance (`hopkit compare quickstart-oner quickstart-ircot` "
            "tests one pair question by question).",
        ]
    if recall:
        lines.append("- Retrieval is measured without the model's answer: the share of gold paragraphs found "
                     f"was {', '.join(recall)} (NoR retrieves nothing).")
    if llm == TINY_LLM:
        lines += [
            "- For a real comparison of the methods, run the same quickstart with a 1.5B model from the "
            "Hugging Face Hub (about 1.1 GB, downloaded once into the cache, then reused; slower per question):",
            f"    {COMPARISON_COMMAND}",
            "  or any GGUF file on the Hub: hopkit quickstart --llm hf://OWNER/NAME/FILE.gguf",
        ]
    return lines
