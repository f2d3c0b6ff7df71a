"""Prompts for goal setting: passive goal creator, SMART prompt optimizer, response optimizer.

Stable first (every prompt here): the shared preamble, memory, the request or goal, and the
role's instruction last, so consecutive calls share their prefix in the model's KV cache.
"""

from prompts.untrusted import PREAMBLE

GOAL_CREATOR = (
    PREAMBLE
    + """
{memory}
<request>
{query}
</request>
<instructions>
Turn the request into one clear goal: one sentence that says what a complete answer must
achieve. Take the lessons in <past_reflections> into account.
</instructions>"""
)

PROMPT_OPTIMIZER = (
    PREAMBLE
    + """
{memory}
<goal>
{goal}
</goal>
<instructions>
Sharpen the goal into a SMART goal: specific, measurable, achievable, relevant and time-bound
(for a research answer: what must be found and how to tell it is done). Return the SMART goal
and 1-3 measurable success criteria.
</instructions>"""
)

RESPONSE_OPTIMIZER = (
    PREAMBLE
    + """
{memory}
<goal>
{goal}
</goal>
<instructions>
Define the shape of the final answer for the goal: its sections, its length and its tone, in
2-4 short lines. Do not answer the goal itself.
</instructions>"""
)
