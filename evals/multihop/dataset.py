"""The multihop benchmark's questions and corpus: HotpotQA, 2WikiMultihopQA and MuSiQue dev
questions (tests/data/multihop, with their licences), every one searched in one corpus of all
three files' paragraphs, so the evidence of most 2Wiki and MuSiQue questions is reached only by
following the chain (find the bridge, then search for it).

Each file is cut into parts, written down here so every run measures what the last one did:
- `dev`, from the start of the file: what results are reported on (`--limit` per dataset);
- `tune`, the file's last TUNE questions: what prompts and settings are tried on;
- the HELD_OUT questions before `tune`: never run; IRCoT's demonstrations come from them.
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import zip_longest
from pathlib import Path

from evals.hotpotqa.dataset import HotpotDataError, HotpotQuestion, load_hotpotqa

DATASETS = {
    "hotpotqa": "hotpotqa_dev300.json",
    "2wiki": "2wiki_dev250.json",
    "musique": "musique_dev100.json",
}
PARTS = ("dev", "tune")
TUNE = 20  # each file's last questions: tuning
HELD_OUT = 10  # the questions before them: demonstrations, never run


@dataclass(frozen=True)
class MultihopQuestion:
    dataset: str  # a key of DATASETS
    file: Path  # the file it is read from (a job loads it by id from there)
    question: HotpotQuestion

    @property
    def id(self) -> str:
        return self.question.id


def part_of(questions: list[HotpotQuestion], part: str) -> list[HotpotQuestion]:
    """The questions of one part of a file (PARTS), in file order."""
    if part not in PARTS:
        raise HotpotDataError(f"--part must be one of {', '.join(PARTS)}, not {part!r}")
    if len(questions) <= TUNE + HELD_OUT:
        raise HotpotDataError(
            f"a multihop file needs more than {TUNE + HELD_OUT} questions, has {len(questions)}"
        )
    if part == "tune":
        return questions[-TUNE:]
    return questions[: -(TUNE + HELD_OUT)]


def load_multihop(
    folder: str | Path,
    *,
    part: str = "dev",
    limits: dict[str, int] | None = None,
    datasets: tuple[str, ...] = tuple(DATASETS),
) -> list[MultihopQuestion]:
    """The part's questions of each dataset in `datasets`, the first `limits[name]` of each
    (all when not given), taken in turns (one of each dataset, then the next of each), so a
    run stopped anywhere has measured every dataset alike."""
    unknown = sorted(set(datasets) - set(DATASETS))
    if unknown or not datasets:
        raise HotpotDataError(f"datasets must be among {', '.join(DATASETS)}, got {unknown}")
    each: list[list[MultihopQuestion]] = []
    for name in datasets:
        path = Path(folder) / DATASETS[name]
        chosen = part_of(load_hotpotqa(path), part)
        limit = (limits or {}).get(name)
        if limit is not None and limit < 1:
            raise HotpotDataError(f"a limit must be at least 1, got {name}={limit}")
        each.append([MultihopQuestion(name, path, q) for q in chosen[:limit]])
    turns = zip_longest(*each)
    return [q for turn in turns for q in turn if q is not None]


def files(folder: str | Path) -> list[Path]:
    """The three files, in DATASETS' order: the pooled corpus holds all their paragraphs,
    whatever part or limit a run measures."""
    return [Path(folder) / name for name in DATASETS.values()]


def gold_sources(q: HotpotQuestion, sources: dict[tuple[str, str], str]) -> list[str]:
    """The sources of a question's gold paragraphs in the pooled corpus."""
    golds = (q.paragraphs[i] for i in q.gold)
    return [sources[(p.title, p.text)] for p in golds if (p.title, p.text) in sources]
