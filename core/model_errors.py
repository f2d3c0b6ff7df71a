"""The errors a model spec or a model server raises, typed so the CLI can print one line for each.

Kept free of heavy imports: the CLI maps these to exit codes without loading LangChain.
"""

from __future__ import annotations


class ModelSpecError(ValueError):
    """A model string that cannot be turned into a model; the message says how to fix it."""


class ModelUnavailable(RuntimeError):
    """The model cannot be reached or loaded (server down, runtime missing); says what to do."""


class LocalModelUnavailable(ModelUnavailable):
    """An embedded model or its runtime is not installed; the message says how to install it."""


class ModelPartError(LocalModelUnavailable):
    """A part of an embedded model is damaged (wrong size or checksum); names its package."""
