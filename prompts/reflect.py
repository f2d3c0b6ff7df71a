"""Prompt for judging one task result; needs_retry=true means NOT good enough."""

REFLECTOR = """You review the result of a task and judge whether it is good enough.
{memory}
<task>
{task}
</task>
<result>
{result}
</result>
Is the result complete, specific and supported by facts from its sources?
- reflection: 2-3 sentences of lessons: what worked, what was missing, what to do next time.
- needs_retry: true if the result is NOT good enough and the task must be done again;
  false if it is good enough.
- confidence: how sure you are, from 0 to 1.
- reasons: short reasons for the verdict."""
