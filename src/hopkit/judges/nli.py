"""A dedicated NLI model: any transformers sequence classifier with an entailment label."""

from __future__ import annotations

from typing import Any, Mapping, Sequence

from hopkit.errors import ConfigError
from hopkit.judges.optional import batches, import_optional, load_transformers
from hopkit.judges.protocol import ENTAILMENT
from hopkit.judges.timing import timed
from hopkit.options import NonEmptyStr, PositiveInt, check_arguments


def entailment_index(id2label: Mapping[int, str], model: str, label: str | None = None) -> int:
    """The output index of the entailment class, found in a model config's ``id2label``.

    Args:
        id2label: the config's map from output index to label name.
        model: the model's name, for messages.
        label: the label to look for exactly (any case); None: the one label starting
            with "entail" (``ENTAILMENT``, ``entailment``; not ``not_entailment``).

    Raises:
        ConfigError: no such label, or several.
    """
    names = {int(index): str(name) for index, name in id2label.items()}
    if label is not None:
        found = [index for index, name in names.items() if name.lower() == label.lower()]
    else:
        found = [index for index, name in names.items() if name.lower().startswith("entail")]
    if len(found) != 1:
        wanted = f"the label {label!r}" if label is not None else "one label starting with 'entail'"
        raise ConfigError(f"NLI model {model!r}: expected {wanted} in its config's id2label, found "
                          f"{sorted(names.items())}; name the entailment label with the option 'label'")
    return found[0]


class NLIEntailment:
    """Entailment from an NLI classifier: the softmax probability of its entailment class.

    The premise and hypothesis are encoded as one pair (premise first), as NLI models
    are trained; a pair longer than ``max_length`` tokens loses tokens from its longer
    side, normally the premise.

    Args:
        model: a loaded ``AutoModelForSequenceClassification``, in evaluation mode.
        tokenizer: its tokenizer.
        model_name: its name or folder, for ``judge_id``.
        entailment: the output index of the entailment class (see :func:`entailment_index`).
        device: where ``model`` is.
        batch_size: pairs per forward pass.
        max_length: tokens per pair.
    """

    def __init__(self, model: Any, tokenizer: Any, model_name: str, *, entailment: int, device: str = "cpu",
                 batch_size: PositiveInt = 16, max_length: PositiveInt = 512) -> None:
        check_arguments(NLIEntailment.__init__, "NLI option", batch_size=batch_size, max_length=max_length)
        self.model = model
        self.tokenizer = tokenizer
        self.entailment_class = entailment
        self.device = device
        self.batch_size = batch_size
        self.max_length = max_length
        self.judge_id = f"nli:{model_name}"

    @classmethod
    def load(cls, model: NonEmptyStr, *, device: str | None = None, batch_size: PositiveInt = 16,
             max_length: PositiveInt = 512, label: str | None = None) -> NLIEntailment:
        """Load an NLI model by Hugging Face name or from a local folder.

        Args:
            model: e.g. ``"cross-encoder/nli-deberta-v3-small"`` or a folder it was saved to.
            device: ``"cpu"``, ``"cuda"``...; None: a GPU when torch sees one, else the CPU.
            batch_size: pairs per forward pass.
            max_length: tokens per pair.
            label: the entailment class's label, when it does not start with "entail".

        Raises:
            ConfigError: transformers or torch is missing, the model cannot be loaded, or
                it has no entailment label.
        """
        check_arguments(cls.load, "NLI option", model=model, batch_size=batch_size, max_length=max_length)
        tokenizer, network, chosen = load_transformers("AutoModelForSequenceClassification", model, device=device,
                                                       needed_by="the NLI entailment judge")
        index = entailment_index(network.config.id2label, model, label)
        return cls(network, tokenizer, model, entailment=index, device=chosen, batch_size=batch_size,
                   max_length=max_length)

    @timed(ENTAILMENT)
    def entailment(self, pairs: Sequence[tuple[str, str]]) -> list[float]:
        """P(entailment) for each ``(premise, hypothesis)``, in batches."""
        torch = import_optional("torch", needed_by="the NLI entailment judge")
        probabilities: list[float] = []
        for batch in batches(pairs, self.batch_size):
            encoded = self.tokenizer([premise for premise, _ in batch], [hypothesis for _, hypothesis in batch],
                                     padding=True, truncation=True, max_length=self.max_length,
                                     return_tensors="pt").to(self.device)
            with torch.inference_mode():
                logits = self.model(**encoded).logits
            probabilities.extend(logits.float().softmax(dim=-1)[:, self.entailment_class].tolist())
        return probabilities
