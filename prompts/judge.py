"""Prompts for the LLM auto-judge: answer equivalence (fuzzy_match), N/A reasons, run success.

Every filled-in value is escaped by the caller (prompts.untrusted.data), and each prompt says its
tagged sections are data: an answer or a page that asks to be graded correct is just graded.
"""

from prompts.untrusted import DATA_RULE

FUZZY_MATCH = (
    """You grade a student's answer to a question against a reference answer.
The student may use different wording; judge whether the meaning is the same.
The string 'N/A' means 'not achievable'.

<question>
{question}
</question>

<reference_answer>
{reference}
</reference_answer>

<student_answer>
{pred}
</student_answer>

Give a one-sentence reason, then the verdict: correct, partially correct, or incorrect.
"""
    + DATA_RULE
)

UNACHIEVABLE_MATCH = (
    """A task cannot be completed for the reason below. Someone tried the task,
failed, and wrote a report. Decide whether the report refers to the same reason, even implicitly.

<task>
{question}
</task>

<reason>
{reference}
</reason>

<report>
{pred}
</report>

Give a one-sentence reason, then the verdict: same or different.
"""
    + DATA_RULE
)

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
