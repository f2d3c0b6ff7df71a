"""Prompts, one module per role: UPPER_SNAKE string constants with XML-tagged sections."""
