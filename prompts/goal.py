"""Prompt for goal setting: the passive goal creator, the prompt optimizer (what must be found)
and the response optimizer (the answer's form), in one structured answer, with the answer
itself when the evidence already states it (answer first: the run checks it before planning).

Stable first: the run's opening (request, evidence), memory, then the instruction.
"""

GOAL_SETTER = """{opening}{memory}
<instructions>
Set the goal of this research request, from the request and the evidence above.
- goal: one sentence saying what a complete answer must establish. Keep every name, title,
  date and detail the request gives.
- answer_form: the form of the final answer: a question about one fact is answered with
  "a name, date, number, yes or no, or a short phrase".
- criteria: 1-3 checks that tell the answer is complete (what must be found or confirmed).
- answer: for that short form, the answer itself when the evidence states it, in as few
  words as it needs; empty ("") when the evidence does not state it.
Take the lessons in <past_reflections> into account.
</instructions>"""
