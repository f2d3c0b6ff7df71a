"""Prompt for judging one task result; needs_retry=true means NOT good enough (stable first: the
run's opening, memory, task, what the task's search found, the result, then the instruction)."""

REFLECTOR = """{opening}{memory}
<task>
{task}
</task>{evidence}
<result>
{result}
</result>
<instructions>
Judge whether the result is good enough: it answers the task, and the evidence or search
results above support it.
- needs_retry: true if the result is NOT good enough and the task must be done again (it is
  wrong, unsupported, or does not answer the task); false if it is good enough.
- confidence: how sure you are, from 0 to 1.
- reflection: 1-2 sentences: a lesson for the next task of this kind, as an instruction that
  names nothing particular to this task (no names, titles or answers). If needs_retry is true:
  what to do differently next time (the mistake to avoid and the step to take instead); if
  false: the step that made it work. Never the verdict again; empty if there is no lesson.
- reasons: short reasons for the verdict.
</instructions>"""
