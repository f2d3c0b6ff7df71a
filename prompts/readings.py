"""Prompts for checking a short final answer against the request (stable first: the run's
opening and what the tasks found besides, then the question last, where a small model answers
it best): one reading of the evidence that answers the request at once, as one direct call
would, and the choice between that answer and the research's when they differ.

The direct reading's instruction comes before the question: put after it, a small model may
answer with the form itself ("a name") instead of the answer."""

MORE_EVIDENCE = """<more_evidence>
{hits}
</more_evidence>
"""

EVIDENCE_ANSWER = (
    "{opening}Answer the question from the evidence. Reply with the answer only: {answer_form};"
    " no sentence, no explanation.\n<question>{request}</question>"
)

CHOOSE_ANSWER = """{opening}<answers>
{answers}
</answers>
<question>{request}</question>
Choose the answer that gives exactly what the question asks for (the kind of thing it asks: a
person, a place, a work, a date, a number, yes or no) and that the evidence supports."""
