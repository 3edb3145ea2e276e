"""Shao et al.'s (2023) ReAct prompts, in the layout their Appendix B prints them.

Source: Shao et al., "Enhancing Retrieval-Augmented Large Language Models with Iterative
Retrieval-Generation Synergy", Findings of EMNLP 2023 (arXiv 2305.15294), Appendix B: Table 10
(HotPotQA), 14 (2WikiMultiHopQA), 18 (MuSiQue), 22 (Bamboogle) and 30 (StrategyQA), "3-Shot
Demonstrations for ReAct". The instruction, questions, follow-ups, intermediate answers and final
answers below are theirs, word for word (their curly apostrophes and their typos, "Random House was
form in 2001", kept); the authors released no code, so the text comes from the paper.

Layout: the instruction (StrategyQA's with its yes/no sentence), then each demonstration after a line
"#": its question, "Are follow up questions needed here: Yes.", each follow-up with the paragraphs
retrieved for it ("{Knowledge}" in the paper) before its intermediate answer, and "So the final
answer is: X". hopkit prints the demonstrations without paragraphs: the paper's placeholder cannot
have been filled with top-5 paragraphs at every one of their 7 to 9 follow-ups within
text-davinci-003's 4,097 tokens (docs/methods/react-shao.md).
"""

from __future__ import annotations

from dataclasses import dataclass

from hopkit.methods.self_ask.prompts import FINAL, FOLLOW_UPS_NEEDED, INTERMEDIATE

INSTRUCTION = ("Given the following question, answer it by providing follow up questions and intermediate answers. "
               "For each follow up question, you are given a context which is the top returned Wikipedia snippets "
               "for the question. If no follow up questions are necessary, answer the question directly.")
YES_OR_NO = "The final answer should always be either Yes or No, and NOTHING ELSE."
SEPARATOR = "#"


@dataclass(frozen=True)
class Demonstration:
    """One worked question: its follow-ups with their intermediate answers, and the final answer."""

    question: str
    steps: tuple[tuple[str, str], ...]
    answer: str

    def text(self) -> str:
        lines = [f"Question: {self.question}", f"{FOLLOW_UPS_NEEDED} Yes."]
        for follow_up, intermediate in self.steps:
            lines += [f"Follow up: {follow_up}", f"{INTERMEDIATE} {intermediate}"]
        return "\n".join([*lines, f"{FINAL} {self.answer}"])


_HOTPOTQA = (
    Demonstration(
        "What is the name of this American musician, singer, actor, comedian, and songwriter, who worked with Modern "
        "Records and born in December 5, 1932?",
        (("Who worked with Modern Records?",
          "Artists worked with Modern Records include Etta James, Little Richard, Joe Houston, Ike and Tina Turner "
          "and John Lee Hooker."),
         ("Is Etta James an American musician, singer, actor, comedian, and songwriter, and was born in December 5, "
          "1932?",
          "Etta James was born in January 25, 1938, not December 5, 1932, so the answer is no."),
         ("Is Little Richard an American musician, singer, actor, comedian, and songwriter, and was born in December "
          "5, 1932?",
          "Yes, Little Richard, born in December 5, 1932, is an American musician, singer, actor, comedian and "
          "songwriter.")),
        "Little Richard"),
    Demonstration(
        "Between Chinua Achebe and Rachel Carson, who had more diverse jobs?",
        (("What jobs did Chinua Achebe have?",
          "Chinua Achebe was a Nigerian (1) novelist, (2) poet, (3) professor, and (4) critic, so Chinua Achebe had 4 "
          "jobs."),
         ("What jobs did Rachel Carson have?",
          "Rachel Carson was an American (1) marine biologist, (2) author, and (3) conservationist, so Rachel Carson "
          "had 3 jobs."),
         ("Did Chinua Achebe have more jobs than Rachel Carson?",
          "Chinua Achebe had 4 jobs, while Rachel Carson had 3 jobs. 4 is greater than 3, so yes, Chinua Achebe had "
          "more jobs.")),
        "Chinua Achebe"),
    Demonstration(
        "Remember Me Ballin’ is a CD single by Indo G that features an American rapper born in what year?",
        (("Which American rapper is featured by Remember Me Ballin’, a CD single by Indo G?", "Gangsta Boo"),
         ("In which year was Gangsta Boo born?", "Gangsta Boo was born in August 7, 1979, so the answer is 1979.")),
        "1979"),
)

_2WIKI = (
    Demonstration(
        "Which film came out first, Blind Shaft or The Mask Of Fu Manchu?",
        (("When did Blind Shaft come out?", "Blind Shaft came out in 2003."),
         ("When did The Mask Of Fu Manchu come out?", "The Mask Of Fu Manchu came out in 1932.")),
        "The Mask Of Fu Manchu"),
    Demonstration(
        "When did John V, Prince Of Anhalt-Zerbst’s father die?",
        (("Who is the father of John V, Prince Of Anhalt-Zerbst?",
          "The father of John V, Prince Of Anhalt-Zerbst is Ernest I, Prince of Anhalt-Dessau."),
         ("When did Ernest I, Prince of Anhalt-Dessau die?", "Ernest I, Prince of Anhalt-Dessau died on 12 June 1516.")),
        "12 June 1516"),
    Demonstration(
        "Which film has the director who was born later, El Extrano Viaje or Love In Pawn?",
        (("Who is the director of El Extrano Viaje?", "The director of El Extrano Viaje is Fernando Fernan Gomez."),
         ("Who is the director of Love in Pawn?", "The director of Love in Pawn is Charles Saunders."),
         ("When was Fernando Fernan Gomez born?", "Fernando Fernan Gomez was born on 28 August 1921."),
         ("When was Charles Saunders (director) born?", "Charles Saunders was born on 8 April 1904.")),
        "El Extrano Viaje"),
)

_MUSIQUE = (
    Demonstration(
        "In which year did the publisher of In Cold Blood form?",
        (("What business published In Cold Blood?", "In Cold Blood was published in book form by Random House."),
         ("Which year witnessed the formation of Random House?", "Random House was form in 2001.")),
        "2001"),
    Demonstration(
        "Who was in charge of the city where The Killing of a Sacred Deer was filmed?",
        (("In which city was The Killing of a Sacred Deer filmed",
          "The Killing of a Sacred Deer was filmed in Cincinnati."),
         ("Who was in charge of Cincinnati?",
          "The present Mayor of Cincinnati is John Cranley, so John Cranley is in charge.")),
        "John Cranley"),
    Demonstration(
        "Where on the Avalon Peninsula is the city that Signal Hill overlooks?",
        (("What city does Signal Hill overlook?", "Signal Hill is a hill which overlooks the city of St. John’s."),
         ("Where on the Avalon Peninsula is St. John’s located?",
          "St. John’s is located on the eastern tip of the Avalon Peninsula.")),
        "eastern tip"),
)

_BAMBOOGLE = (
    Demonstration(
        "When did the first prime minister of the Russian Empire come into office?",
        (("Who is the first prime minister of the Russian Empire?", "Sergei Witte"),
         ("When did Sergei Witte come into office?", "Sergei Witte was appointed on 6 November 1905.")),
        "1905-11-06 00:00:00"),
    Demonstration(
        "The most populous city in Punjab is how large (area wise)?",
        (("What is the most populous city in Punjab?", "Ludhiana is the most populous and largest city in Punjab."),
         ("How large is Ludhiana, the most populous city in Punjab?", "The area of Ludhiana is over 310 km2.")),
        "310 square kilometers"),
    Demonstration(
        "What is the capital of the country where yoga originated?",
        (("Which country was yoga originated?",
          "There is no consensus on yoga’s origin. Suggested origins include India."),
         ("What is the capital of India?", "The current capital of India is New Delhi.")),
        "New Delhi"),
)

_STRATEGYQA = (
    Demonstration(
        "Is it common to see frost during some college commencements?",
        (("What seasons can you expect to see frost?", "Frost is common during the winter."),
         ("When is college commencement?",
          "College commencement ceremonies often happen during the months of December, May, June."),
         ("Do any of the months December, May, June occur during the Winter?", "December is in the winter.")),
        "Yes"),
    Demonstration(
        "Could a llama birth twice during War in Vietnam (1945-46)?",
        (("How long did the vietnam war (1945-1946) last?", "The War in Vietnam (1945-46) lasted around 6 months."),
         ("How long is the llama gestation period?", "The gestation period for a llama is 11.5 months."),
         ("What is 2 times 11.5?", "23, which is longer than 6.")),
        "No"),
    Demonstration(
        "Would Richard Dawkins hypothetically refuse an offering of the Last rites?",
        (("What are the last Rites?",
          "The Last rites, in Catholicism, are the last prayers and ministrations given to an individual of the "
          "faith, when possible, shortly before death."),
         ("What are Richard Dawkins religious beliefs?",
          "Richard Dawkins is known as an outspoken atheist, well known for his criticism of creationism and "
          "intelligent design."),
         ("Would an atheist participate in Catholics prayers?",
          "It is unlikely that an atheist would participate in Catholics prayers.")),
        "Yes"),
)

#: dataset -> (its demonstrations, whether the instruction asks for yes or no)
PROMPTS: dict[str, tuple[tuple[Demonstration, ...], bool]] = {
    "hotpotqa": (_HOTPOTQA, False), "2wikimultihopqa": (_2WIKI, False), "musique": (_MUSIQUE, False),
    "bamboogle": (_BAMBOOGLE, False), "strategyqa": (_STRATEGYQA, True),
}
#: the prompt of a dataset the paper has none for (IIRC, a free-text question)
FALLBACK = "hotpotqa"


def prompt_dataset(dataset: str | None) -> str:
    """Whose prompt a run on ``dataset`` reads: its own, else HotPotQA's."""
    return dataset.lower() if dataset is not None and dataset.lower() in PROMPTS else FALLBACK


def prompt_head(dataset: str | None) -> str:
    """The instruction and the three demonstrations of ``dataset``'s table, each after a "#" line, and the
    "#" line the test question follows."""
    demonstrations, yes_or_no = PROMPTS[prompt_dataset(dataset)]
    instruction = f"{INSTRUCTION} {YES_OR_NO}" if yes_or_no else INSTRUCTION
    return "\n".join([instruction, *(f"{SEPARATOR}\n{d.text()}" for d in demonstrations), SEPARATOR])
