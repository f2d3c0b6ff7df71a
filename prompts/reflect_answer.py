"""Prompt for the lesson of a run whose two readings of its evidence disagreed (stable first:
check_answer's opening, the two answers and the question as its choice read them, so a local
model reads only the instruction anew; then the instruction)."""

from prompts.reflect import LESSON_FIELDS

ANSWERS_DISAGREED = (
    """{opening}<answers>
{answers}
</answers>
<question>{request}</question>
<instructions>
The research over this evidence answered the first, one direct reading of the same evidence
the second; {kept!r} was kept. Two readings that disagree mean at least one went wrong: the
wrong kind of thing (a person where the question asks for an event, a step on the way where it
asks for the end), a name the evidence does not give, or more or fewer words than the question
asks for. Say what to do differently on a question like this one.
"""
    + LESSON_FIELDS % "the mistake one of the answers shows and the step to take instead."
    + """
</instructions>"""
)
