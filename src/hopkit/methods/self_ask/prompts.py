"""Self-Ask's prompt (Press et al., 2023, "Measuring and Narrowing the Compositionality Gap in
Language Models"): the four demonstrations of the authors' search-engine notebook
(github.com/ofirpress/self-ask, ``self-ask_plus_search-engine_demo.ipynb``), verbatim as the copies of
it read: the trailing spaces it keeps on twelve of their lines (after "Muhammad Ali", after "Joseph
Ball", and on every line of the fourth but its last) and the fourth's "Intermediate Answer:"
capitalised; and the markers the loop reads."""

from __future__ import annotations

FOLLOW_UPS_NEEDED = "Are follow up questions needed here:"
FOLLOW_UP = "Follow up:"
INTERMEDIATE = "Intermediate answer:"
FINAL = "So the final answer is:"

#: Where a generation stops: before the answer to a follow-up (the search engine's turn), or
#: before the model starts a question of its own.
STOP = ("\nIntermediate answer:", "\nIntermediate Answer:", "\nQuestion:")

#: The authors' four demonstrations, as their notebook joins them, one line per string so that the
#: notebook's trailing spaces show.
DEMONSTRATIONS = "\n".join((
    "Question: Who lived longer, Muhammad Ali or Alan Turing?",
    "Are follow up questions needed here: Yes.",
    "Follow up: How old was Muhammad Ali when he died?",
    "Intermediate answer: Muhammad Ali was 74 years old when he died.",
    "Follow up: How old was Alan Turing when he died?",
    "Intermediate answer: Alan Turing was 41 years old when he died.",
    "So the final answer is: Muhammad Ali ",
    "",
    "Question: When was the founder of craigslist born?",
    "Are follow up questions needed here: Yes.",
    "Follow up: Who was the founder of craigslist?",
    "Intermediate answer: Craigslist was founded by Craig Newmark.",
    "Follow up: When was Craig Newmark born?",
    "Intermediate answer: Craig Newmark was born on December 6, 1952.",
    "So the final answer is: December 6, 1952",
    "",
    "Question: Who was the maternal grandfather of George Washington?",
    "Are follow up questions needed here: Yes.",
    "Follow up: Who was the mother of George Washington?",
    "Intermediate answer: The mother of George Washington was Mary Ball Washington.",
    "Follow up: Who was the father of Mary Ball Washington?",
    "Intermediate answer: The father of Mary Ball Washington was Joseph Ball.",
    "So the final answer is: Joseph Ball ",
    "",
    "Question: Are both the directors of Jaws and Casino Royale from the same country? ",
    "Are follow up questions needed here: Yes. ",
    "Follow up: Who is the director of Jaws? ",
    "Intermediate Answer: The director of Jaws is Steven Spielberg. ",
    "Follow up: Where is Steven Spielberg from? ",
    "Intermediate Answer: The United States. ",
    "Follow up: Who is the director of Casino Royale? ",
    "Intermediate Answer: The director of Casino Royale is Martin Campbell. ",
    "Follow up: Where is Martin Campbell from? ",
    "Intermediate Answer: New Zealand. ",
    "So the final answer is: No",
))


def question_line(question: str) -> str:
    """The test question as the demonstrations open theirs, up to where the model goes on."""
    return f"Question: {' '.join(question.split())}\n{FOLLOW_UPS_NEEDED}"


def demonstrations(trailing_spaces: bool = True) -> str:
    """The four demonstrations; without ``trailing_spaces``, each line stripped of its trailing spaces
    (hopkit's copy before issue 71, with which the campaign's saved Self-Ask and ReAct-Shao cells ran)."""
    if trailing_spaces:
        return DEMONSTRATIONS
    return "\n".join(line.rstrip() for line in DEMONSTRATIONS.split("\n"))
