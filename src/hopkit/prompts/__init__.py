"""Prompts: the IRCoT authors' few-shot files and hopkit's zero-shot templates."""

from hopkit.prompts.ircot_files import (IRCoTPromptFiles, PromptFile, load_demonstrations,
                                        load_title_demonstrations, parse_prompt_file)

__all__ = ["IRCoTPromptFiles", "PromptFile", "load_demonstrations", "load_title_demonstrations",
           "parse_prompt_file"]
