"""Prompts for judging one task result; needs_retry=true means NOT good enough (stable first: the
run's opening, memory, task, what the task's search found, the result, then the instruction).
Both prompts open with the attempt (`ATTEMPT`), so the second reads it from the model's cache."""

ATTEMPT = """{opening}{memory}
<task>
{task}
</task>{evidence}
<result>
{result}
</result>"""

LESSON_FIELDS = """- reflection: 1-2 sentences about this task: %s
  Never the verdict again; empty if there is no lesson.
- strategy: one sentence of advice for any task of this kind, in the form "When <kind of
  task>, <what to do>." It names nothing particular (no person, title, place, number or
  answer), so it helps the next, different task."""

REFLECTOR = (
    ATTEMPT
    + """
<instructions>
Judge whether the result is good enough: it answers the task, and the evidence or search
results above support it.
- needs_retry: true if the result is NOT good enough and the task must be done again (it is
  wrong, unsupported, or does not answer the task); false if it is good enough.
- confidence: how sure you are, from 0 to 1.
"""
    + LESSON_FIELDS
    % "if needs_retry is true, what to do differently next time\n  (the mistake to avoid and "
    "the step to take instead); if false, the step that made it work."
    + """
- reasons: short reasons for the verdict.
</instructions>"""
)

UNSUPPORTED = (
    ATTEMPT
    + """
<instructions>
The result is NOT good enough: it names {names}, which neither the request, the evidence, the
task nor its search results contain, so it was not read but made up. Say what to do
differently next time.
"""
    + LESSON_FIELDS % "the mistake to avoid and the step to take instead."
    + """
</instructions>"""
)

RETRY_WORKED = (
    ATTEMPT
    + """
<instructions>
An earlier attempt at this task failed; this result is supported by what the task read. Say
what made it work.
"""
    + LESSON_FIELDS % "the step that made this attempt work where the earlier one failed."
    + """
</instructions>"""
)
