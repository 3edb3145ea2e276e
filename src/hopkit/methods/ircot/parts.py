"""The parts of IRCoT that call the model, each a column of the cost tables (``ircot:<part>``)."""

from hopkit.usage import ModelCallParts

PARTS = ModelCallParts("ircot", ("read", "reason", "titles"))
