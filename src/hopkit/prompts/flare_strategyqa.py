"""FLARE's six StrategyQA exemplars (Jiang et al., 2023), in the layout hopkit's FLARE prompts with.

Source: the authors' repository, ``jzbjyb/FLARE``, ``src/datasets.py``, ``StrategyQA.cot_examplars``:
Wei et al.'s (2022) six StrategyQA chain-of-thought questions, each with the short supporting
statements the FLARE authors put before it as its retrieved context, and their answer template
"<chain of thought> So the final answer is <yes|no>." The questions, statements, chains and
answers below are theirs, word for word.

What differs from their prompt is the frame, kept the same as for FLARE's other datasets in hopkit:
each statement is a paragraph of its own before ``Q: <question>`` and ``A: <chain>`` (the IRCoT
authors' layout), where the authors' code writes "Search results ranked based on relevance in
descending order:\\n[1]: ..." and "Generate a yes or no answer to the following
question.\\nQuestion: ...\\nAnswer: ...". Their statements have no titles, so they
are shown as plain paragraphs, without a ``Wikipedia Title:`` line.
"""

from __future__ import annotations

from dataclasses import dataclass

from hopkit.prompts.layout import render_question


@dataclass(frozen=True)
class FLAREExemplar:
    question: str
    statements: tuple[str, ...]
    chain: str
    answer: str


FLARE_STRATEGYQA_EXEMPLARS: tuple[FLAREExemplar, ...] = (
    FLAREExemplar(
        "Do hamsters provide food for any animals?",
        ("Hamsters are prey animals.", "Prey animals provide food for predators."),
        "Hamsters are prey animals. Prey are food for predators. Thus, hamsters provide food for some animals.",
        "yes"),
    FLAREExemplar(
        "Could Brooke Shields succeed at University of Pennsylvania?",
        ("Brooke Shields graduated from Princeton University.",
         "Princeton is ranked as the number 1 national college by US news.",
         "University of Pennsylvania is ranked as number 6 national college by US news.",
         "Princeton only admits around 6 percent of applicants as of 2018.",
         "University of Pennsylvania accepts around 9% of applicants as of 2018."),
        "Brooke Shields went to Princeton University. Princeton University is about as academically rigorous as "
        "the University of Pennsylvania. Thus, Brooke Shields could also succeed at the University of Pennsylvania.",
        "yes"),
    FLAREExemplar(
        "Hydrogen's atomic number squared exceeds number of Spice Girls?",
        ("Hydrogen is the first element and has an atomic number of one.", "The Spice Girls has five members.",
         "To square a number, you multiply it by itself."),
        "Hydrogen has an atomic number of 1. 1 squared is 1. There are 5 Spice Girls. Thus, Hydrogen's atomic "
        "number squared is less than 5.",
        "no"),
    FLAREExemplar(
        "Is it common to see frost during some college commencements?",
        ("Frost isn't uncommon to see during the month of December, as it is the winter.",
         "College commencement ceremonies often happen during the months of December, May, and sometimes June."),
        "College commencement ceremonies can happen in December, May, and June. December is in the winter, so "
        "there can be frost. Thus, there could be frost at some commencements.",
        "yes"),
    FLAREExemplar(
        "Could a llama birth twice during War in Vietnam (1945-46)?",
        ("The War in Vietnam (1945-46) lasted around 6 months.", "The gestation period for a llama is 11 months."),
        "The War in Vietnam was 6 months. The gestation period for a llama is 11 months, which is more than 6 "
        "months. Thus, a llama could not give birth twice during the War in Vietnam.",
        "no"),
    FLAREExemplar(
        "Would a pear sink in water?",
        ("The density of a raw pear is about 0.59 g/cm^3.", "The density of water is about 1 g/cm^3.",
         "Objects only sink if they are denser than the surrounding fluid."),
        "The density of a pear is about 0.6g/cm^3, which is less than water. Objects less dense than water float. "
        "Thus, a pear would float.",
        "no"),
)


def load_flare_strategyqa_demonstrations(reader: str = "cot", *, with_context: bool = True) -> list[str]:
    """The six exemplars as demonstrations: ``cot`` ends each chain with "So the final answer is
    <answer>.", ``direct`` answers alone; ``with_context`` puts the statements before each question."""
    return [render_exemplar(exemplar, reader, with_context=with_context) for exemplar in FLARE_STRATEGYQA_EXEMPLARS]


def render_exemplar(exemplar: FLAREExemplar, reader: str, *, with_context: bool) -> str:
    answer = f"{exemplar.chain} So the final answer is {exemplar.answer}." if reader == "cot" else exemplar.answer
    question = render_question(exemplar.question, answer)
    return "\n\n".join((*exemplar.statements, question)) if with_context else question
