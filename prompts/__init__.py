"""Prompts, one module per graph (research.py, web.py) and per memory job (consolidate.py,
workflows.py): UPPER_SNAKE string constants with XML-tagged sections."""
