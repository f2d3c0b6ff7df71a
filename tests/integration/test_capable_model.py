"""The default embedded model, Qwen2.5-Coder-1.5B, on real parts: its 22 wheels assemble into the
GGUF their checksums name, the README's command answers the README's question, and a HotpotQA
question one direct call answers is answered by the reflective graph too.

These are the suite's few tests whose subject is the answer: they run the real model (slow, a
few minutes on 2 cores) and fail when it answers wrong.
"""

from __future__ import annotations

import hashlib
import json
import subprocess
import sys

import pytest

from core.model_assembly import model_path
from core.model_catalogue import CATALOGUE, DEFAULT_EMBEDDED
from core.models import Models
from evals.hotpotqa.agent import make_answer_fn
from evals.hotpotqa.dataset import load_hotpotqa
from evals.hotpotqa.metrics import exact_match_score
from tests.conftest import DATA, ROOT

pytestmark = pytest.mark.integration
README_QUESTION = (
    'The creator of "Wallace and Gromit" also created what animation comedy that matched '
    "animated zoo animals with a soundtrack of people talking about their homes?"
)
CORPUS = ROOT / "examples" / "corpus"
# a dev question the direct call answers (docs/models.md); its gold answer is "Virginia"
HOTPOTQA_ID = "5a845d735542996488c2e52e"
FULL_SHA256 = "cc324af070c2ecbfd324a30884d2f951a7ff756aba85cb811a6ec436933bb046"


def test_the_default_models_parts_assemble_into_the_gguf_of_its_checksums(tmp_path):
    model = CATALOGUE[DEFAULT_EMBEDDED]
    path = model_path(model, tmp_path)  # from the installed wheels, into an empty cache
    digest = hashlib.sha256()
    with path.open("rb") as f:
        while chunk := f.read(1 << 24):
            digest.update(chunk)
    assert path.stat().st_size == model.size == 1_117_320_768
    assert digest.hexdigest() == FULL_SHA256
    assert model_path(model, tmp_path) == path  # verified once, then reused


def test_the_readme_command_answers_the_readme_question(tmp_path):
    """`./agent run QUESTION --corpus examples/corpus` on the default model (as the README)."""
    command = [sys.executable, "main.py", "--home", str(tmp_path), "run", README_QUESTION]
    done = subprocess.run(
        [*command, "--corpus", str(CORPUS), "--json"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=1200,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    out = json.loads(done.stdout.strip().splitlines()[-1])
    assert "creature comforts" in out["answer"].lower(), out["final_output"]
    corpus_files = {p.name for p in CORPUS.iterdir()}
    assert out["sources"] and set(out["sources"]) <= corpus_files, out["sources"]


def test_a_question_one_call_answers_the_reflective_graph_answers_too(tmp_path):
    questions = load_hotpotqa(DATA / "hotpotqa" / "distractor_dev60.json")
    (question,) = [q for q in questions if q.id == HOTPOTQA_ID]
    models = Models()  # one load of the model for both
    answers = {}
    for graph in ("direct", "reflective"):
        answer_fn = make_answer_fn(
            model="local",
            max_retries=1,
            home=str(tmp_path / graph),
            graph_name=graph,
            reflections=False,
            models=models,
        )
        answers[graph] = answer_fn(question.question, question.paragraphs)[0]
    assert exact_match_score(answers["direct"], question.answer), answers
    assert exact_match_score(answers["reflective"], question.answer), answers
