"""The README and docs keep their promises: the set-up commands, a short README for users, and
commands, modules, files and links that exist."""

from __future__ import annotations

import re
from pathlib import Path

from cli.commands import COMMANDS
from tests.conftest import ROOT

README = ROOT / "README.md"
DOCS = sorted([*(ROOT / "docs").glob("*.md"), *(ROOT / "docs" / "evaluations").glob("*.md")])
# (docs/results/ holds generated report pages)
SETUP = [
    './agent run "The creator of \\"Wallace and Gromit\\" also created what animation comedy'
    " that matched animated zoo animals with a soundtrack of people talking about their homes?"
    '" --corpus examples/corpus',
    "./scripts/test",
]
MAX_README_LINES = 200
# Top-level folders whose paths a page may name; a named path in one of them must exist.
TRACKED = (
    "agents",
    "bench",
    "browser",
    "cli",
    "core",
    "docs",
    "evals",
    "examples",
    "graphs",
    "memory",
    "prompts",
    "scripts",
    "tests",
)


def _pages() -> list[Path]:
    return [README, *DOCS]


def _exists(name: str) -> bool:
    """A path, or a dotted name under a path (`agents/web/workflow_args.aligned`)."""
    path = name.split(":")[0].rstrip("/")
    while path:
        if (ROOT / path).exists() or (ROOT / f"{path}.py").exists():
            return True
        path = path.rpartition(".")[0]
    return False


def _defined(dotted: str) -> bool:
    """`package.module.Name`: the longest prefix that is a module exists and defines Name."""
    parts = dotted.split(".")
    for i in range(len(parts), 0, -1):
        base = ROOT.joinpath(*parts[:i])
        source = (
            base.with_suffix(".py") if base.with_suffix(".py").is_file() else base / "__init__.py"
        )
        if source.is_file():
            if i == len(parts):
                return True
            name = re.escape(parts[i])
            pattern = rf"^\s*(?:async def|def|class) {name}\b|^{name}\s*[:=]|import .*\b{name}\b"
            return re.search(pattern, source.read_text(encoding="utf-8"), re.MULTILINE) is not None
    return False


def test_the_readme_is_short_and_opens_with_the_two_setup_commands():
    lines = README.read_text(encoding="utf-8").splitlines()
    assert len(lines) <= MAX_README_LINES, f"README.md has {len(lines)} lines"
    for command in SETUP:
        assert command in lines, f"README.md lost its set-up command: {command}"


def test_the_readme_names_no_commit_or_issue():
    text = README.read_text(encoding="utf-8")
    hashes = re.findall(r"\b(?=[0-9a-f]*\d)(?=[0-9a-f]*[a-f])[0-9a-f]{7,40}\b", text)
    issues = re.findall(r"\bissues? #?\d+", text, flags=re.IGNORECASE)
    assert not hashes and not issues, f"history belongs in commits: {hashes + issues}"


def test_docs_prose_names_no_issue():
    found = {}
    for page in DOCS:
        if hits := re.findall(r"\bissues? #?\d+", page.read_text(encoding="utf-8"), re.I):
            found[page.name] = hits
    assert not found, f"docs narrate issue history: {found}"


def test_the_agent_commands_shown_exist():
    named = set()
    for page in _pages():
        named |= set(re.findall(r"\./agent (?:--\S+ \S+ )*([a-z][a-z-]*)", page.read_text()))
    unknown = sorted(named - set(COMMANDS))
    assert named and not unknown, f"commands shown but not defined: {unknown}"


def test_the_python_commands_shown_name_existing_modules():
    missing = {}
    for page in _pages():
        text = page.read_text(encoding="utf-8")
        modules = re.findall(r"python -m ([A-Za-z_][\w.]*)", text)
        scripts = re.findall(r"python ((?:bench|scripts|evals)/[\w/]+\.py)", text)
        for module in modules:
            base = ROOT / module.replace(".", "/")
            if not (base.with_suffix(".py").is_file() or (base / "__main__.py").is_file()):
                if module not in ("pytest", "pip"):
                    missing.setdefault(page.name, []).append(module)
        missing_scripts = [s for s in scripts if not (ROOT / s).is_file()]
        if missing_scripts:
            missing.setdefault(page.name, []).extend(missing_scripts)
    assert not missing, f"commands naming modules that do not exist: {missing}"


def test_the_paths_and_links_shown_exist():
    missing = {}
    for page in _pages():
        text = page.read_text(encoding="utf-8")
        names = [n for n in re.findall(r"`([\w./:-]+)`", text) if n.split("/")[0] in TRACKED]
        names = [n for n in names if "/" in n]
        bare = rf"(?<![\w/.])((?:{'|'.join(TRACKED)})/[\w/.-]+\.(?:py|md|json|txt|toml))\b"
        names += re.findall(bare, text)
        links = re.findall(r"\]\(([^)#\s]+)(?:#[^)]*)?\)", text)
        links = [
            str((page.parent / link).resolve().relative_to(ROOT))
            for link in links
            if "://" not in link
        ]
        if gone := [n for n in names + links if not _exists(n)]:
            missing[page.name] = gone
    assert not missing, f"pages name paths that do not exist: {missing}"


def test_the_embedding_example_imports_what_graphs_exports():
    import reflective_agent.graphs as graphs

    text = README.read_text(encoding="utf-8")
    imports = re.findall(r"^from reflective_agent.graphs import (.+)$", text, flags=re.MULTILINE)
    names = {name.strip() for line in imports for name in line.split(",")}
    assert names and names <= set(graphs.__all__), f"not exported by graphs: {names}"


def test_the_dotted_names_shown_are_defined():
    packages = [p for p in TRACKED if (ROOT / p / "__init__.py").is_file()]
    missing = {}
    for page in _pages():
        text = page.read_text(encoding="utf-8")
        dotted = re.findall(r"`([a-z_]+(?:\.[A-Za-z_]\w*)+)(?:[:(][^`]*)?`", text)
        if gone := [d for d in dotted if d.split(".")[0] in packages and not _defined(d)]:
            missing[page.name] = gone
    assert not missing, f"pages name modules or objects that do not exist: {missing}"


# What the embedding snippet's test puts in place of what needs a key and a network: the
# scripted model for the chat model object; every Context gets the scripted models (its spec
# strings) and the fake corpus search (tests/unit/research_script.py).
FAKES = {
    'ChatOpenAI(model="gpt-4o-mini")': "scripted_model",
    "Context(": "Context(models=wire.models, tools=wire.tools, ",
}


def _embedding_snippet() -> str:
    text = README.read_text(encoding="utf-8")
    section = text.split("## LangGraph Studio and other apps", 1)[1]
    return section.split("```python\n", 1)[1].split("```", 1)[0]


def test_the_embedding_snippet_runs_and_its_store_without_index_remembers(wire):
    import warnings

    from langgraph.graph import StateGraph
    from typing_extensions import TypedDict

    from graphs import Context
    from memory.unindexed import MemoryOffWarning
    from tests.unit.research_script import Script

    class Parent(TypedDict, total=False):
        query: str
        final_output: str

    code = _embedding_snippet()
    for real, fake in FAKES.items():
        assert real in code, f"the README snippet no longer has {real}"
        code = code.replace(real, fake)
    model = wire(Script({0: [True, False]}))  # task 1 retried once: a lesson to remember
    names = {
        "wire": wire,
        "scripted_model": model,
        "parent": StateGraph(Parent, context_schema=Context),
    }
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        exec(compile(code, "README.md", "exec"), names)
    off = [str(w.message) for w in seen if issubclass(w.category, MemoryOffWarning)]
    # the graph compiled without a store says memory is off; the InMemoryStore() one remembers
    assert len(off) == 1 and "compiled without a store" in off[0], off
    assert names["out"]["final_output"].startswith("FINAL")
    store = names["graph"].store
    assert store.search(("reflections", "default"), limit=20)

    model.calls.clear()
    names["graph"].invoke(
        {"query": "Ada Lovelace?"}, context=Context(models=wire.models, tools=wire.tools)
    )
    plan = next(c["prompt"] for c in model.calls if c["title"] == "DecomposedTasks")
    assert "cite the source." in plan.split("<past_reflections>")[1].split("</past_reflections>")[0]
