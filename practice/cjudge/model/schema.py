"""A case's ``model`` in the verdict JSON, typed: what :func:`.case.model_case` writes and the
CLI, the server, the web app and course exports read."""

from __future__ import annotations

from typing import NotRequired, TypedDict

from .topology import TopologyJSON


class Words(TypedDict):
    """A sentence in English and in Chinese."""

    en: str
    zh: str


class SizeRow(TypedDict):
    """The trace replayed at one modelled size (``sweep``), and how it stands to the bound."""

    size: int  # S, a rank's input bytes at this size
    time_s: float  # when the last rank finished
    algbw: float  # GB/s, nccl-tests' algorithm bandwidth
    busbw: float  # GB/s, nccl-tests' bus bandwidth
    steps: int  # α paid on the critical path
    latency_s: float  # of the critical path, in α terms
    transfer_s: float  # of the critical path, in bytes/β terms
    compute_s: float  # of the critical path, in the judge's functions
    link_bytes: dict[str, float]  # bytes moved per link class
    complete: bool  # False: the replay lost something the switch saw (a judge defect)
    bound_s: NotRequired[float | None]  # the exercise's time bound at this size, if it has one
    over: NotRequired[bool]  # over the bound beyond its tolerance, on a case it judges
    floor_s: NotRequired[float]  # the lowest time any correct algorithm reaches


class BoundJSON(TypedDict):
    """The exercise's time bound: its formula, its tolerance, and whether this case is judged."""

    formula: str
    tolerance: float
    judged: bool


class FloorJSON(TypedDict):
    """The floor no correct run goes under: a run below it was mis-measured, never ranked."""

    time: str  # the time floor's formula
    bytes: str  # the bytes floor's formula
    bytes_floor: float  # the bytes floor in the run
    below: bool
    note: NotRequired[Words]  # why a run below the floor is not ranked


class ModelJSON(TypedDict):
    """A case's modelled times: the trace replayed at each modelled size on the exercise's
    topology, against its bound and floor; or, for a case the ``[model]`` section does not
    list, ``modelled`` false and a note that says so."""

    topology: NotRequired[TopologyJSON]  # its name, GPUs, nodes and links
    contention: NotRequired[bool]
    run_size: NotRequired[int]  # the case's S in the run, from which messages are scaled
    scaled: NotRequired[Words]  # how the run's messages were scaled
    sizes: list[SizeRow]
    bound: BoundJSON | None
    floor: NotRequired[FloorJSON]
    modelled: NotRequired[bool]  # false for a case the exercise's [model] cases do not list
    note: NotRequired[Words]  # why it is not modelled
