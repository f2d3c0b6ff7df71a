"""budgeted_memory: workflows first, then exemplars, then reflections, all inside the budget."""

from __future__ import annotations

from pathlib import Path

from memory.budget import MemoryGroup
from memory.workflows.files import WorkflowFiles
from memory.workflows.format import format_workflow
from memory.workflows.prompt import budgeted_memory
from memory.workflows.types import Workflow


class WordModel:
    """Counts words; a small context so the budget binds."""

    def __init__(self, window: int) -> None:
        self.context_window = window

    def get_num_tokens(self, text: str) -> int:
        return len(text.split())


def test_groups_in_order_and_under_budget(tmp_path: Path) -> None:
    ws = [
        Workflow(name=f"w{i}", description="d " * 5, steps=["click('1')", "click('2')"])
        for i in range(4)
    ]
    WorkflowFiles(tmp_path).save("site", ws)
    per_workflow = len(format_workflow(ws[0]).split())  # "## w0" + 5 + 2 = 9 words
    reflections = MemoryGroup("reflections", ["lesson " * 10] * 3, str)
    # overhead + system + query, then 4 workflows, 1 exemplar, 2 of 3 reflections, reserve
    model = WordModel(window=16 + 2 + 2 + 4 * per_workflow + 10 + 2 * 10 + 100)
    r = budgeted_memory(
        "the query",
        system="sys tem",
        home=tmp_path,
        embeddings=None,
        model=model,
        exemplars=["example " * 10],
        extra_groups=[reflections],
        response_reserve=100,
    )
    assert r.counts() == {"workflows": "4/4", "exemplars": "1/1", "reflections": "2/3"}
    assert r.text.startswith("## w0") and r.text.rstrip().endswith("lesson")
    assert r.tokens <= model.context_window - 100
