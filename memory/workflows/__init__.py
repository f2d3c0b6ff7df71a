"""Workflow memory (AWM): the records, their text format and files, retrieval and induction."""
