"""ASI's admission record: the values a workflow had in the run it was learned from, the
verification record kept with its provenance, and the arm that admits verified workflows."""

from __future__ import annotations

from langgraph.store.memory import InMemoryStore

from evals.awm.arms import arm_context, parse_arms
from evals.awm.verification import arguments_from, unverified_from, verification
from memory.agent_memory import AgentMemory
from memory.workflows.types import Provenance, Workflow

LOGIN = Workflow(
    "login_user",
    "Log in as {username}",
    ["type [3] [{username}] [0]  # textbox ''", "click [25]  # button 'Login'"],
    Provenance(website="miniwob-login-user", sources=["t1"], origin="online-rule"),
)


def test_the_values_of_the_run_it_came_from_fill_its_placeholders():
    run = ["type [13] [ada] [0]  # textbox ''", "click [35]  # button 'Login'"]
    assert arguments_from(LOGIN, run) == {"username": "ada"}
    assert arguments_from(LOGIN, run[:1]) is None  # another run: not its steps
    assert arguments_from(LOGIN, [run[0], "click [35]  # link 'Login'"]) is None


def test_a_recorded_fields_label_is_not_part_of_the_step():
    # Observations name a nameless field by the text beside it, and runs record that; the
    # induced workflow keeps `# role 'name'` only, so the rest of the record is not compared.
    run = ["type [3] [ada] [0]  # textbox '' label: 'Username'", "click [25]  # button 'Login'"]
    assert arguments_from(LOGIN, run) == {"username": "ada"}
    focused = ["type [3] [ada] [0]  # textbox '' label: 'Username' focused: True", run[1]]
    assert arguments_from(LOGIN, focused) == {"username": "ada"}
    assert arguments_from(LOGIN, [run[0], "click [25]  # button 'Log out'"]) is None


def test_the_verification_record_travels_with_the_workflow():
    memory = AgentMemory(InMemoryStore())
    assert unverified_from([LOGIN], "t1") == [LOGIN] and unverified_from([LOGIN], "t2") == []
    LOGIN.provenance.verification = verification("miniwob/login-user#seed5", True, "reward 1.0")
    memory.merge_workflows("miniwob-login-user", [LOGIN])
    again = Workflow(LOGIN.name, LOGIN.description, list(LOGIN.steps), Provenance())
    memory.merge_workflows("miniwob-login-user", [again])  # re-induced, the same steps: verified
    (kept,) = memory.workflows("miniwob-login-user")
    assert kept.provenance.verified and kept.provenance.verification["where"].endswith("#seed5")
    changed = Workflow(LOGIN.name, LOGIN.description, LOGIN.steps[:1], Provenance())
    memory.merge_workflows("miniwob-login-user", [changed])  # new steps: never replayed
    (kept,) = memory.workflows("miniwob-login-user")
    assert kept.provenance.verification is None and not kept.provenance.verified
    LOGIN.provenance.verification = None


def test_the_verified_arm_admits_verified_workflows_only():
    (arm,) = parse_arms("workflow-actions-verified")
    ctx = arm_context(arm, model="fake", home="h", max_steps=5, online_induction="rule")
    assert ctx.verified_workflows and ctx.workflow_actions and ctx.use_workflows
    (plain,) = parse_arms("workflow-actions")
    assert not arm_context(
        plain, model="f", home="h", max_steps=5, online_induction="rule"
    ).verified_workflows


def test_the_report_counts_workflows_replayed_and_admitted_per_arm():
    from evals.awm.verify import admissions

    records = [
        {"arm": "workflow-actions-verified", "verification": {"replayed": 1, "admitted": 1}},
        {"arm": "workflow-actions-verified", "verification": {"replayed": 2, "admitted": 0}},
        {"arm": "workflow-actions"},
    ]
    assert admissions(records) == {"workflow-actions-verified": {"replayed": 3, "admitted": 1}}


def test_a_verifying_arm_replays_after_each_success_only(monkeypatch, tmp_path):
    from evals.awm import jobs

    calls = []

    def episode(resources, family, seed, ctx):
        return {"reward": 1.0 if seed == 5 else 0.0, "steps": [{}], "trajectory_id": f"t{seed}"}

    def replayed(resources, ctx, family, seed, trajectory_id):
        calls.append((family, seed, trajectory_id, ctx.verified_workflows))
        return {"replayed": 1, "admitted": 1, "names": ["w"]}

    class Resources:
        models = None

        def run(self, value):
            return value

    monkeypatch.setattr(jobs, "_graph_episode", episode)
    monkeypatch.setattr("evals.awm.verify.verify_learned", replayed)
    payload = {
        "arm": "workflow-actions-verified",
        "setting": "online",
        "phase": "test",
        "family": "click-option",
        "position": 0,
        "home": str(tmp_path),
        "model": "fake",
        "max_steps": 3,
        "online_induction": "rule",
        "embedding_model": "hashing:256",
    }
    won = jobs.agent_episode({**payload, "seed": 5}, Resources())
    lost = jobs.agent_episode({**payload, "seed": 6}, Resources())
    assert won["verification"]["admitted"] == 1 and "verification" not in lost
    assert calls == [("click-option", 5, "t5", True)]
