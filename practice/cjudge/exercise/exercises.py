"""Exercise folders: loading, validating, and saying precisely what is wrong with a bad one.

An exercise is a folder ``exercises/<id>/`` holding ``exercise.toml`` (metadata, rules, cases),
``statement.md`` and ``statement.zh.md``, ``starter.py``, ``solution.py``, ``wrong/*.py`` (each
declares its expected verdict on a first-lines comment ``# expect: <verdict>``) and ``grader.py``
(trusted code: inputs, expected values, byte bound, diagnosis).
"""

from __future__ import annotations

import dataclasses
import hashlib
import importlib.util
import math
import re
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import TypedDict, TypeVar

from ..contract.primitives import CANONICAL, allowed_ops
from ..contract.protocol import JobSpec, Output
from ..contract.verdicts import Verdict
from ..kit.case import REQUIRED_HOOKS
from ..kit.hooks import Hooks
from ..model.bound import Bound
from ..model.case import ModelSpec
from ..model.topology import ModelError

ID_RE = re.compile(r"^[a-z0-9]+(-[a-z0-9]+)*$")
EXPECT_RE = re.compile(r"^#\s*expect:\s*([a-z_]+)\s*$", re.MULTILINE)
DTYPES = ("float32", "float64", "int64")
#: how messages are charged (``Exercise.payload_bytes``), the default first
PAYLOAD_BYTES = ("case-dtype", "as-sent")
GRADER_FUNCTIONS = REQUIRED_HOOKS
REQUIRED_FILES = ("exercise.toml", "statement.md", "statement.zh.md", "starter.py",
                  "solution.py", "grader.py")
#: what never leaves the judge: the reference, the known-wrong solutions and the staff's notes on
#: what each measure costs to fake (``gaming.md``: a map of the checks, for authors, never a
#: learner's guide) (a *published* copy of an exercise, e.g. the browser's, holds everything else)
PRIVATE_FILES = ("solution.py", "wrong", "gaming.md")
#: the catalog's tracks, in the order a learner takes them, with their headings (en, zh)
TRACKS = {
    "primitives": ("The primitives", "基本原语"),
    "bandwidth-optimal": ("Bandwidth-optimal algorithms", "带宽最优算法"),
    "latency-optimal": ("Latency-optimal algorithms", "延迟最优算法"),
    "topology": ("Topology-aware algorithms", "拓扑感知算法"),
    "data-parallel": ("Data parallelism and ZeRO", "数据并行与 ZeRO"),
    "tensor-parallel": ("Tensor and sequence parallelism", "张量并行与序列并行"),
    "context-parallel": ("Context and sequence parallelism", "上下文与序列并行"),
    "expert-parallel": ("Expert parallelism", "专家并行"),
    "pipeline": ("Pipeline parallelism", "流水线并行"),
}
#: the chapter's sections an exercise comes from (en, zh), by key
CHAPTER = {
    "five-primitives": ("The five primitives", "五种原语"),
    "ring-volume": ("The ring all-reduce and its volume", "环形 all-reduce 及其通信量"),
    "alpha-beta": ("The alpha-beta model", "α-β 模型"),
    "bus-bandwidth": ("Algorithm bandwidth and bus bandwidth", "算法带宽与总线带宽"),
    "topology": ("The hardware topology", "硬件拓扑"),
    "exercises": ("Exercises", "练习"),
}
#: how hard an exercise is, as the catalog says it (en, zh)
DIFFICULTIES = {
    "intro": ("intro", "入门"),
    "core": ("core", "核心"),
    "advanced": ("advanced", "进阶"),
}


T = TypeVar("T")


class ExerciseError(ValueError):
    """A malformed exercise folder: the message names the file, the field and the expected form."""


@dataclass(frozen=True)
class Case:
    """One case of an exercise: its name, world size, whether learners see it, and parameters."""

    name: str
    world_size: int
    sample: bool
    params: dict[str, int | str]


@dataclass(frozen=True)
class MessageBound:
    """``[messages]``: how many messages a rank may send where the algorithm fixes their number
    (an empty message carries data by being there, so a flood of them is ``over_budget``)."""

    bound: Bound  # a formula of n and the cases' numeric parameters
    algorithm: tuple[str, str]  # what needs that many, (English, Chinese): "the ring"

    def __call__(self, world: int, params: dict[str, int | str]) -> int:
        """The most messages one rank may send in a case of ``world`` ranks with ``params``."""
        numbers = {k: float(v) for k, v in params.items()
                   if isinstance(v, int | float) and not isinstance(v, bool)}
        return math.floor(self.bound(**numbers, n=world) + 1e-9)


@dataclass(frozen=True)
class WrongSolution:
    """A known-wrong solution and the verdict it must get."""

    path: Path
    expect: Verdict


@dataclass(frozen=True)
class Exercise:
    """A validated exercise folder."""

    id: str
    path: Path
    title: dict[str, str]
    function: str
    signature: str
    output: Output
    allowed: tuple[str, ...]
    builtin: str
    time_limit_s: float
    output_limit_bytes: int
    seed: int
    cases: tuple[Case, ...]
    wrong: tuple[WrongSolution, ...]
    content_hash: str
    grader: Hooks = field(repr=False, compare=False)
    model: ModelSpec = field(default_factory=ModelSpec, compare=False)
    messages: MessageBound | None = field(default=None, compare=False)  # None: not bounded
    draft: bool = False  # being written (``judge.py new``): served by no front door yet
    #: case parameters passed to the graded function after the tensor, in order (e.g. a root)
    arguments: tuple[str, ...] = ()
    #: where the catalog lists it: a track of ``TRACKS``, its place there, what to solve first
    track: str | None = None
    order: int | None = None
    prerequisites: tuple[str, ...] = ()
    difficulty: str | None = None  # a key of ``DIFFICULTIES``
    chapter: tuple[str, ...] = ()  # keys of ``CHAPTER``: the sections it comes from
    #: how ``judge.py bench`` reads the graded call's result beside the built-in's output:
    #: "flat" (as it is, flattened) or "transposed" (a (k, n) matrix for all_to_all's (n, k))
    bench_result: str = "flat"
    #: case parameters ``judge.py bench`` multiplies to reach each size when the graded call
    #: takes more than the built-in's tensor (it then times the grader's inputs at that size)
    bench_scale: tuple[str, ...] = ()
    #: how a message is charged (``payload_bytes``): a floating-point payload narrower than the
    #: case's dtype at the case's width (``"case-dtype"``: a down-cast saves nothing), or as
    #: sent (``"as-sent"``: the exercise teaches compression)
    payload_bytes: str = "case-dtype"

    def statement(self, lang: str = "en") -> str:
        """The statement in Markdown, in English (``en``) or Chinese (``zh``), with its rules
        section generated from ``exercise.toml`` appended (``cjudge.exercise.rules``)."""
        from .rules import rules_section  # it grades cases, and grading imports this module

        name = "statement.zh.md" if lang == "zh" else "statement.md"
        text = (self.path / name).read_text(encoding="utf-8").rstrip("\n")
        return f"{text}\n\n{rules_section(self, lang)}"

    @property
    def starter(self) -> str:
        """The starter file a learner begins from."""
        return (self.path / "starter.py").read_text(encoding="utf-8")

    @property
    def solution(self) -> str:
        """The reference solution (never shown by the server)."""
        return (self.path / "solution.py").read_text(encoding="utf-8")

    @property
    def parameters(self) -> tuple[str, ...]:
        """The graded function's parameter names as :attr:`signature` writes them (the first
        function's, where it names two: ``dispatch(x, …) / combine(…)``), defaults dropped."""
        head = self.signature.split("(", 1)[-1].split(")", 1)[0]
        return tuple(n.split("=")[0].strip() for n in head.split(","))

    def call_args(self, params: dict[str, int | str]) -> list[int | float | str]:
        """The graded call's arguments after the tensor, for a case with ``params``."""
        return [params[name] for name in self.arguments]

    def job_spec(self, code: str, filename: str) -> JobSpec:
        """What a runtime needs to run ``code`` for this exercise."""
        return JobSpec(function=self.function, output=self.output,
                       allowed=sorted(allowed_ops(list(self.allowed))), code=code,
                       filename=filename, time_limit_s=self.time_limit_s,
                       output_limit_bytes=self.output_limit_bytes)


def _need(table: Mapping[str, object], key: str, kind: type[T] | tuple[type[T], ...], where: str,
          form: str) -> T:
    """``table[key]``, checked to be a ``kind`` (a bool is no number)."""
    if key not in table:
        raise ExerciseError(f"{where}: missing field `{key}` (expected {form})")
    value = table[key]
    if not isinstance(value, kind) or isinstance(value, bool) and kind is not bool:
        raise ExerciseError(f"{where}: field `{key}` is {value!r}; expected {form}")
    return value


def _load_cases(raw: object, where: str) -> tuple[Case, ...]:
    if not isinstance(raw, list) or not raw:
        raise ExerciseError(f"{where}: needs at least one [[cases]] table")
    cases, names = [], set()
    for i, table in enumerate(raw):
        at = f"{where} [[cases]] #{i + 1}"
        if not isinstance(table, dict):
            raise ExerciseError(f"{at}: is {table!r}; expected a table of the case's fields")
        name = _need(table, "name", str, at, "a string")
        if name in names:
            raise ExerciseError(f"{at}: duplicate case name {name!r}")
        names.add(name)
        world = _need(table, "world_size", int, at, "an integer from 1 to 64")
        if not 1 <= world <= 64:
            raise ExerciseError(f"{at}: field `world_size` is {world}; expected 1 to 64")
        dtype = _need(table, "dtype", str, at, f"one of {', '.join(DTYPES)}")
        if dtype not in DTYPES:
            raise ExerciseError(f"{at}: field `dtype` is {dtype!r}; expected one of {DTYPES}")
        sample = table.get("sample", False)
        if not isinstance(sample, bool):
            raise ExerciseError(f"{at}: field `sample` is {sample!r}; expected true or false")
        params = {k: v for k, v in table.items() if k not in ("name", "world_size", "sample")}
        cases.append(Case(name=name, world_size=world, sample=sample, params=params))
    if not any(c.sample for c in cases):
        raise ExerciseError(f"{where}: no case has `sample = true`; learners must see one")
    return tuple(cases)


def _load_wrong(folder: Path) -> tuple[WrongSolution, ...]:
    wrong = []
    for path in sorted(folder.glob("wrong/*.py")):
        head = "\n".join(path.read_text(encoding="utf-8").splitlines()[:5])
        match = EXPECT_RE.search(head)
        if not match:
            raise ExerciseError(f"{path}: the first lines must declare `# expect: <verdict>`")
        try:
            verdict = Verdict(match.group(1))
        except ValueError:
            codes = ", ".join(v.value for v in Verdict)
            raise ExerciseError(f"{path}: unknown verdict {match.group(1)!r}; one of {codes}") from None
        wrong.append(WrongSolution(path=path, expect=verdict))
    return tuple(wrong)


def _load_grader(folder: Path, exercise_id: str) -> Hooks:
    path = folder / "grader.py"
    spec = importlib.util.spec_from_file_location(f"cjudge_grader_{exercise_id.replace('-', '_')}",
                                                  path)
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    for name in GRADER_FUNCTIONS:
        if not callable(getattr(module, name, None)):
            raise ExerciseError(f"{path}: must define a function `{name}`")
    return Hooks(module)


def is_private(relative: Path) -> bool:
    """Whether a file of an exercise (a path relative to its folder) must not be published."""
    return relative.parts[0] in PRIVATE_FILES


def content_hash(folder: Path) -> str:
    """A short hash of the exercise's published files (everything that decides a verdict or is
    shown), to tell which version a submission met; the same in a published copy."""
    digest = hashlib.sha256()
    for path in sorted(p for p in folder.rglob("*") if p.is_file() and "__pycache__" not in p.parts
                       and not is_private(p.relative_to(folder))):
        digest.update(path.relative_to(folder).as_posix().encode() + b"\0" + path.read_bytes())
    return digest.hexdigest()[:16]


def load_exercise(folder: Path, published: bool = False) -> Exercise:
    """Load and validate one exercise folder, raising :class:`ExerciseError` on any fault.

    A ``published`` copy lacks the private files (reference and wrong solutions).
    """
    folder = Path(folder)
    for name in REQUIRED_FILES:
        if published and name in PRIVATE_FILES:
            continue
        if not (folder / name).is_file():
            raise ExerciseError(f"{folder / name}: missing file (every exercise needs "
                                f"{', '.join(REQUIRED_FILES)})")
    where = str(folder / "exercise.toml")
    try:
        meta: Mapping[str, object] = tomllib.loads((folder / "exercise.toml").read_text(encoding="utf-8"))
    except tomllib.TOMLDecodeError as exc:
        raise ExerciseError(f"{where}: not valid TOML: {exc}") from None
    exercise_id = _need(meta, "id", str, where, "the folder's name, in kebab-case")
    if not ID_RE.match(exercise_id) or exercise_id != folder.name:
        raise ExerciseError(f"{where}: field `id` is {exercise_id!r}; expected the folder's name "
                            f"{folder.name!r} in kebab-case (a-z, 0-9, '-')")
    title = _need(meta, "title", dict, where, '{ en = "...", zh = "..." }')
    if not all(isinstance(title.get(k), str) for k in ("en", "zh")):
        raise ExerciseError(f'{where}: field `title` needs both en and zh strings')
    output = _need(meta, "output", object, where, '"inplace" or "return"')  # narrowed next
    if output not in ("inplace", "return"):
        raise ExerciseError(f'{where}: field `output` is {output!r}; expected "inplace" or "return"')
    allowed = _need(meta, "allowed", list, where, "a list of primitive names")
    unknown = [a for a in allowed if a not in CANONICAL]
    if unknown:
        raise ExerciseError(f"{where}: field `allowed` names unknown primitives {unknown}; "
                            f"known: {', '.join(sorted(CANONICAL))}")
    function = _need(meta, "function", str, where, "the graded function's name")
    if not function.isidentifier():
        raise ExerciseError(f"{where}: field `function` is {function!r}; expected an identifier")
    signature = meta.get("signature", f"{function}(...)")
    if not isinstance(signature, str):
        raise ExerciseError(f"{where}: field `signature` is {signature!r}; expected a string")
    builtin = _need(meta, "builtin", str, where, "a torch collective")
    return Exercise(
        id=exercise_id, path=folder, title={"en": title["en"], "zh": title["zh"]},
        function=function, signature=signature, output=output,
        allowed=tuple(allowed), builtin=builtin,
        time_limit_s=float(_need(meta, "time_limit_s", (int, float), where, "seconds")),
        output_limit_bytes=_need(meta, "output_limit_bytes", int, where, "bytes"),
        seed=_need(meta, "seed", int, where, "an integer"),
        cases=_load_cases(meta.get("cases"), where),
        wrong=() if published else _load_wrong(folder),
        content_hash=content_hash(folder), grader=_load_grader(folder, exercise_id),
        model=_model(meta, builtin, where), messages=_messages(meta, where), draft=_draft(meta, where),
        arguments=_arguments(meta, where), **_catalog(meta, where, exercise_id),
        bench_result=_bench_result(meta, where), bench_scale=_bench_scale(meta, where),
        payload_bytes=_payload_bytes(meta, where),
    )


class Catalog(TypedDict):
    """An exercise's place in the catalog (:class:`Exercise`'s fields of that name)."""

    track: str | None
    order: int | None
    prerequisites: tuple[str, ...]
    difficulty: str | None
    chapter: tuple[str, ...]


def _catalog(meta: Mapping[str, object], where: str, exercise_id: str) -> Catalog:
    """``track``, ``order``, ``prerequisites`` and ``difficulty``: the exercise's place in the
    catalog."""
    track, order = meta.get("track"), meta.get("order")
    if track is not None and (not isinstance(track, str) or track not in TRACKS):
        raise ExerciseError(f"{where}: field `track` is {track!r}; expected one of "
                            f"{', '.join(TRACKS)}")
    if order is not None and (isinstance(order, bool) or not isinstance(order, int)
                              or order < 1 or track is None):
        raise ExerciseError(f"{where}: field `order` is {order!r}; expected a positive integer, "
                            "the exercise's place within its `track`")
    prerequisites = meta.get("prerequisites", [])
    if not isinstance(prerequisites, list) or not all(
            isinstance(p, str) and ID_RE.match(p) and p != exercise_id for p in prerequisites):
        raise ExerciseError(f"{where}: field `prerequisites` is {prerequisites!r}; expected a "
                            'list of other exercises\' ids, e.g. ["tree-broadcast"]')
    difficulty = meta.get("difficulty")
    if difficulty is not None and (not isinstance(difficulty, str) or difficulty not in DIFFICULTIES):
        raise ExerciseError(f"{where}: field `difficulty` is {difficulty!r}; expected one of "
                            f"{', '.join(DIFFICULTIES)}")
    chapter = meta.get("chapter", [])
    if not isinstance(chapter, list) or not all(c in CHAPTER for c in chapter):
        raise ExerciseError(f"{where}: field `chapter` is {chapter!r}; expected a list of the "
                            f"chapter's sections: {', '.join(CHAPTER)}")
    return Catalog(track=track, order=order, prerequisites=tuple(prerequisites),
                   difficulty=difficulty, chapter=tuple(chapter))


def check_catalog(exercises: dict[str, Exercise], strict: bool = True) -> None:
    """``strict`` (``judge.py check``): every prerequisite names a loaded exercise and no two
    exercises share a track's place. Otherwise (serving a course, which may install a part of
    the set or a copy of an exercise) prerequisites that name none are dropped and a shared
    place is ordered by id."""
    places: dict[tuple[str, int], str] = {}
    for ex in list(exercises.values()):
        where = ex.path / "exercise.toml"
        unknown = [p for p in ex.prerequisites if p not in exercises]
        if unknown and strict:
            raise ExerciseError(f"{where}: field `prerequisites` names unknown exercises "
                                f"{unknown}; known: {', '.join(exercises)}")
        if unknown:
            exercises[ex.id] = ex = dataclasses.replace(
                ex, prerequisites=tuple(p for p in ex.prerequisites if p in exercises))
        if ex.track is not None and ex.order is not None:
            other = places.setdefault((ex.track, ex.order), ex.id)
            if other != ex.id and strict:
                raise ExerciseError(f"{where}: field `order` is {ex.order}, but exercise "
                                    f"{other!r} has that place in track {ex.track!r}")


def catalog_order(exercises: dict[str, Exercise]) -> list[Exercise]:
    """The exercises as the catalog lists them: by track, then order, then id; those without a
    track last."""
    tracks = list(TRACKS)

    def key(ex: Exercise) -> tuple[int, int, str]:
        place = tracks.index(ex.track) if ex.track is not None else len(tracks)
        return place, ex.order if ex.order is not None else 1 << 30, ex.id

    return sorted(exercises.values(), key=key)


def _case_tables(meta: Mapping[str, object]) -> list[dict[str, object]]:
    """The ``[[cases]]`` tables (:func:`_load_cases` checked them)."""
    cases = meta.get("cases")
    return [c for c in cases if isinstance(c, dict)] if isinstance(cases, list) else []


def _bench_result(meta: Mapping[str, object], where: str) -> str:
    """``bench_result``: how ``judge.py bench`` reads the result ("flat" unless said)."""
    layout = meta.get("bench_result", "flat")
    if layout not in ("flat", "transposed"):
        raise ExerciseError(f'{where}: field `bench_result` is {layout!r}; expected "flat" or '
                            '"transposed"')
    return layout


def _payload_bytes(meta: Mapping[str, object], where: str) -> str:
    """``payload_bytes``: ``"case-dtype"`` (the default) or ``"as-sent"``, for an exercise whose
    point is compression."""
    charge = meta.get("payload_bytes", "case-dtype")
    if charge not in PAYLOAD_BYTES:
        raise ExerciseError(f"{where}: field `payload_bytes` is {charge!r}; expected "
                            f"{' or '.join(map(repr, PAYLOAD_BYTES))}")
    return str(charge)


def _bench_scale(meta: Mapping[str, object], where: str) -> tuple[str, ...]:
    """``bench_scale``: the case parameters ``judge.py bench`` scales with the size (none unless
    said); each must be an integer, or a list of integers whose first it scales (every one for
    ``name[*]``), in every sample case and in every other case that gives it."""
    scale = meta.get("bench_scale", [])
    if not isinstance(scale, list) or not all(isinstance(name, str) for name in scale):
        raise ExerciseError(f"{where}: field `bench_scale` is {scale!r}; expected a list of case "
                            "parameter names")
    for case in _case_tables(meta):
        for entry in scale:
            name = entry.removesuffix("[*]")
            if name not in case and not case.get("sample"):
                continue  # bench scales a sample case only
            value = case.get(name)
            items = value if isinstance(value, list) and value else [value]
            if any(isinstance(v, bool) or not isinstance(v, int)
                   for v in items[:None if entry != name else 1]):
                raise ExerciseError(f"{where}: `bench_scale` names {name!r}, which case "
                                    f"{case.get('name')!r} does not give as an integer")
    return tuple(scale)


def _arguments(meta: Mapping[str, object], where: str) -> tuple[str, ...]:
    """``arguments``: case parameters every case defines (numbers or strings), passed in order."""
    names = meta.get("arguments", [])
    form = 'a list of case parameter names, e.g. ["src"]'
    if not isinstance(names, list) or not all(isinstance(n, str) for n in names):
        raise ExerciseError(f"{where}: field `arguments` is {names!r}; expected {form}")
    for i, table in enumerate(_case_tables(meta)):
        for name in names:
            value = table.get(name)
            if name in ("name", "world_size", "sample") or isinstance(value, bool) \
                    or not isinstance(value, int | float | str):
                raise ExerciseError(f"{where} [[cases]] #{i + 1}: `arguments` names {name!r}, so "
                                    f"every case needs a parameter `{name}` (a number or string)")
    return tuple(names)


def _model(meta: Mapping[str, object], builtin: str, where: str) -> ModelSpec:
    """The ``[model]`` table: topology, modelled sizes, the time bound and the cases it judges,
    and the floor every exercise declares (the judge checking itself)."""
    table = meta.get("model")
    try:
        spec = ModelSpec.from_table(table if isinstance(table, dict) else None, CANONICAL.get(builtin))
    except ModelError as exc:
        raise ExerciseError(f"{where}: [model]: {exc}") from None
    if spec.floor is None:
        raise ExerciseError(f'{where}: [model] needs floor = {{ time = "<formula>", bytes = '
                            '"<formula>" }: the lowest modelled time and bytes any correct '
                            'algorithm reaches, e.g. time = "min(n-1, 1)*alpha + '
                            '2*(n-1)/n*S/beta", bytes = "2*(n-1)/n*S" for an all-reduce')
    return spec


def _messages(meta: Mapping[str, object], where: str) -> MessageBound | None:
    """The ``[messages]`` table: ``bound``, a formula of n and the cases' numeric parameters,
    and ``algorithm = { en, zh }``, what needs that many messages."""
    table = meta.get("messages")
    if table is None:
        return None
    form = ('[messages] needs bound = "<formula of n and case parameters>" and algorithm = '
            '{ en = "the ring", zh = "环形算法" }')
    algorithm = table.get("algorithm") if isinstance(table, dict) else None
    if not isinstance(table, dict) or set(table) != {"bound", "algorithm"} \
            or not isinstance(algorithm, dict) or set(algorithm) != {"en", "zh"} \
            or not all(isinstance(v, str) for v in algorithm.values()):
        raise ExerciseError(f"{where}: {form}")
    cases = _case_tables(meta)
    shared = set.intersection(*(set(c) for c in cases)) if cases else set()
    names = ("n", *sorted(k for k in shared if all(
        isinstance(c[k], int | float) and not isinstance(c[k], bool) for c in cases)))
    try:
        bound = Bound(table["bound"], names)
    except ModelError as exc:
        raise ExerciseError(f"{where}: [messages] bound: {exc}") from None
    return MessageBound(bound, (algorithm["en"], algorithm["zh"]))


def _draft(meta: Mapping[str, object], where: str) -> bool:
    draft = meta.get("draft", False)
    if not isinstance(draft, bool):
        raise ExerciseError(f"{where}: field `draft` is {draft!r}; expected true or false")
    return draft


def is_draft(folder: Path) -> bool:
    """Whether the folder's ``exercise.toml`` says ``draft = true`` (read without validating
    the rest, so that an unfinished draft never stops the other exercises from loading)."""
    try:
        meta = tomllib.loads((Path(folder) / "exercise.toml").read_text(encoding="utf-8"))
    except (OSError, tomllib.TOMLDecodeError):
        return False
    return meta.get("draft") is True


def load_exercises(root: Path, published: bool = False, drafts: bool = False,
                   strict: bool = False) -> dict[str, Exercise]:
    """Every exercise under ``root``, by id, in name order; drafts (``draft = true``) only
    when asked for. ``strict`` (``judge.py check``): a prerequisite that names no exercise
    here is an error; otherwise it is left out of the catalog."""
    folders = sorted(p for p in Path(root).iterdir() if (p / "exercise.toml").exists()
                     and (drafts or not is_draft(p)))
    exercises = {ex.id: ex for ex in (load_exercise(f, published) for f in folders)}
    check_catalog(exercises, strict)
    return exercises


def default_root() -> Path:
    """The exercises the package carries (``cjudge/bundled_exercises`` in an installed wheel),
    else the source checkout's ``exercises/`` folder (beside ``practice/``)."""
    bundled = resources.files("cjudge") / "bundled_exercises"
    if isinstance(bundled, Path) and bundled.is_dir():
        return bundled
    return Path(__file__).resolve().parents[3] / "exercises"
