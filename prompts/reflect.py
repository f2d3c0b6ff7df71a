"""Prompt for judging one task result; needs_retry=true means NOT good enough (stable first:
preamble, memory, task, result, then the instruction)."""

from prompts.untrusted import PREAMBLE

REFLECTOR = (
    PREAMBLE
    + """
{memory}
<task>
{task}
</task>
<result>
{result}
</result>
<instructions>
Judge whether the result is good enough: complete, specific and supported by facts from its
sources.
- reflection: 2-3 sentences of lessons: what worked, what was missing, what to do next time.
- needs_retry: true if the result is NOT good enough and the task must be done again;
  false if it is good enough.
- confidence: how sure you are, from 0 to 1.
- reasons: short reasons for the verdict.
</instructions>"""
)
