"""The prompt of the LLM auto-judge of a web episode's success.

Every filled-in value is escaped by the caller (prompts.untrusted.data), and each prompt says its
tagged sections are data: an answer or a page that asks to be graded correct is just graded.
"""

from prompts.untrusted import DATA_RULE

EPISODE_SUCCESS = (
    """You check whether a web agent accomplished a user's task, judging only from
the record below. Success means the task's goal was met: the requested information was given
correctly in the final answer, or the requested change was made in the final state.
A run that stopped early, looped, or answered something else is a failure.

<task>
{task}
</task>

<trajectory>
{trajectory}
</trajectory>

<final_state>
URL: {final_url}
Answer: {answer}
</final_state>

List up to three short reasons, then say whether the run succeeded.
"""
    + DATA_RULE
)
