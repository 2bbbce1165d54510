"""The ``torch``, ``torch.distributed`` and ``torch.nn.functional`` module objects the learner's
code imports.

``modules()`` builds them; a runner puts them in ``sys.modules`` under those names. Any attribute
they lack raises an error naming it and pointing to the local judge.
"""

from __future__ import annotations

import types
from collections.abc import Callable
from typing import Any

from ..contract.primitives import ALIASES
from . import collectives, cuda, distributed, dtypes, factories, functional, p2p, rng
from .errors import UnsupportedAttribute
from .tensor import Device, Size, Tensor

#: torch.distributed's names, by the module that defines them here
_DIST_NAMES = {
    distributed: (
        "init_process_group", "destroy_process_group", "is_initialized", "is_available",
        "is_gloo_available", "is_nccl_available", "is_mpi_available", "is_torchelastic_launched",
        "get_backend", "get_rank", "get_world_size", "get_process_group_ranks", "get_global_rank",
        "get_group_rank", "new_group", "ProcessGroup", "ReduceOp", "Work", "group", "GroupMember",
    ),
    p2p: ("send", "recv", "isend", "irecv", "P2POp", "batch_isend_irecv"),
    collectives: (
        "all_reduce", "reduce_scatter", "reduce_scatter_tensor", "all_gather",
        "all_gather_into_tensor", "all_to_all", "all_to_all_single", "broadcast", "reduce",
        "gather", "scatter", "barrier", "monitored_barrier",
    ),
}

_TORCH_FUNCTIONS = (
    "tensor", "as_tensor", "arange", "linspace", "zeros", "ones", "empty", "full", "zeros_like",
    "ones_like", "empty_like", "full_like", "randn", "rand", "randint", "randperm",
)

_FUNCTIONAL = (
    "cat", "concat", "concatenate", "stack", "equal", "allclose", "isclose", "where", "numel",
    "is_tensor", "is_floating_point", "repeat_interleave",
)


class _NoGrad:
    """``torch.no_grad()`` / ``torch.inference_mode()``: there is no autograd, so nothing to do."""

    def __init__(self, mode: bool = True) -> None:
        self.mode = mode

    def __enter__(self) -> None:
        return None

    def __exit__(self, *exc: object) -> None:
        return None

    def __call__(self, fn: Callable[..., Any]) -> Callable[..., Any]:
        return fn


def _missing(prefix: str) -> Callable[[str], Any]:
    def __getattr__(name: str) -> Any:
        if name.startswith("__"):
            raise AttributeError(name)
        raise UnsupportedAttribute(f"{prefix}.{name}")

    return __getattr__


def modules() -> dict[str, types.ModuleType]:
    """Fresh ``torch`` and ``torch.distributed`` modules backed by the simulation."""
    dist = types.ModuleType("torch.distributed", "Simulated torch.distributed (cjudge.sim).")
    for module, names in _DIST_NAMES.items():
        for name in names:
            setattr(dist, name, getattr(module, name))
    for alias, name in ALIASES.items():  # torch's other names of a call, by version
        if "." not in alias:
            setattr(dist, alias, getattr(dist, name))
    vars(dist)["__getattr__"] = _missing("torch.distributed")

    torch = types.ModuleType("torch", "Simulated torch (cjudge.sim): a pure-Python subset.")
    vars(torch).update({"__version__": "2.13.0+sim", "distributed": dist, "Tensor": Tensor,
                        "Size": Size, "device": Device, "dtype": dtypes.DType,
                        "Generator": rng.Generator})
    for name, dtype in dtypes.ATTRS.items():
        setattr(torch, name, dtype)
    for name in _TORCH_FUNCTIONS:
        setattr(torch, name, getattr(factories, name))
    for name in _FUNCTIONAL:
        setattr(torch, name, getattr(functional, name))
    for name in functional.METHODS:
        setattr(torch, name, functional.method_function(name))
    for name in ("manual_seed", "initial_seed", "seed"):
        setattr(torch, name, getattr(rng, name))
    vars(torch).update({"no_grad": _NoGrad, "inference_mode": _NoGrad,
                        "__getattr__": _missing("torch")})
    nn_functional = types.ModuleType("torch.nn.functional", "Simulated torch.nn.functional.")
    for name in functional.NN_FUNCTIONAL:
        setattr(nn_functional, name, getattr(functional, name))
    vars(nn_functional)["__getattr__"] = _missing("torch.nn.functional")
    nn = types.ModuleType("torch.nn", "Simulated torch.nn: its functional part only.")
    vars(nn).update({"functional": nn_functional, "__getattr__": _missing("torch.nn")})
    vars(torch)["nn"] = nn
    vars(torch)["cuda"] = torch_cuda = cuda.module(_missing("torch.cuda"))
    return {"torch": torch, "torch.distributed": dist, "torch.nn": nn,
            "torch.nn.functional": nn_functional, "torch.cuda": torch_cuda}
