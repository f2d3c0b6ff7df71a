"""The HotpotQA AnswerFn drives the reflective graph over the question's own paragraphs."""

from __future__ import annotations

from evals.hotpotqa import Paragraph, exact_match_score
from evals.hotpotqa_agent import make_answer_fn
from tests.unit.test_reflective_graph import Script, wire  # noqa: F401  (fixture)


class HotpotScript(Script):
    def __call__(self, prompt, title, tools, messages):
        if title == "ShortAnswer":
            assert "FINAL" in prompt  # cut from the graph's final output
            return {"answer": "1815"}
        return super().__call__(prompt, title, tools, messages)


def test_answer_fn_runs_the_graph_on_a_corpus_of_the_paragraphs(wire, isolated_home):  # noqa: F811
    wire(HotpotScript([False] * 10))
    fn = make_answer_fn(model="local", max_retries=1, home=str(isolated_home))
    paragraphs = [
        Paragraph("Ada Lovelace", ["Ada Lovelace was born in 1815."]),
        Paragraph("Charles Babbage", ["Babbage designed the Analytical Engine."]),
    ]
    answer, trials = fn("When was Ada Lovelace born?", paragraphs)
    assert exact_match_score(answer, "1815") and trials == [answer]
    saved = list((isolated_home / "hotpotqa").glob("*/passages.jsonl"))
    assert len(saved) == 1 and "Babbage designed" in saved[0].read_text()
