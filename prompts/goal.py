"""Prompts for goal setting: passive goal creator, SMART prompt optimizer, response optimizer."""

GOAL_CREATOR = """You turn a user's request into one clear goal.
{memory}
<request>
{query}
</request>
Write the goal as one sentence that says what a complete answer must achieve.
Take the lessons in <past_reflections> into account."""

PROMPT_OPTIMIZER = """You sharpen a goal into a SMART goal: specific, measurable, achievable,
relevant and time-bound (for a research answer: what must be found and how to tell it is done).
{memory}
<goal>
{goal}
</goal>
Return the SMART goal and 1-3 measurable success criteria."""

RESPONSE_OPTIMIZER = """You define the shape of the final answer for a goal: its sections, its
length and its tone, in 2-4 short lines. Do not answer the goal itself.
{memory}
<goal>
{goal}
</goal>"""
