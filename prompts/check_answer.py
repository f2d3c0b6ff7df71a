"""Prompts for checking a short final answer against the request (stable first: the run's
opening, then the question last, where a small model answers it best): one reading of the
evidence that answers the request at once, as one direct call would, and the choice between
that answer and the research's when they differ."""

EVIDENCE_ANSWER = """{opening}<question>{request}</question>
Reply with the answer only: {answer_form}, taken from the evidence."""

CHOOSE_ANSWER = """{opening}<answers>
{answers}
</answers>
<question>{request}</question>
Choose the answer that gives exactly what the question asks for (the kind of thing it asks: a
person, a place, a work, a date, a number, yes or no) and that the evidence supports."""
