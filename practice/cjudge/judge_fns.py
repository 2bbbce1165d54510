"""What a rank holds of a function the judge hands the learner's call (a pipeline stage, an
expert): a callable that sends its arguments to the switch, which applies the function
(``switch.functions``: the params never reach the rank) and answers the output.

The rank's input names the function by a handle (``{"fn": name, "handle": k, "label": ...}``).
A call takes a tensor and, for some functions, a list of small integers (an expert's ``counts``:
a list, a tuple or an integer tensor); its bytes go to the switch with the learner's line, and
the output comes back as a new tensor of the same shape and dtype. Runtime-agnostic: the caller
passes its tensors' plain-data converters.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from .protocol import TensorData, bilingual
from .switch.core import SwitchError
from .switch.functions import pack
from .switch.reduce import DTYPES, values_of

#: name -> the names of its parameters: a tensor, then at most one list of integers
SIGNATURES: dict[str, tuple[str, ...]] = {"affine": ("x",), "expert": ("tokens", "counts")}


def _integers(value: Any, to_data: Callable[[Any], TensorData | None], what: str) -> list[int]:
    """A list of small integers from a list, a tuple or an integer tensor."""
    data = to_data(value)
    items = data["data"] if data is not None else value
    if not isinstance(items, (list, tuple)) or not all(
            isinstance(v, int) or (isinstance(v, float) and v.is_integer()) for v in items):
        raise bilingual(TypeError, f"{what} must be a list of integers", f"{what} 必须是整数列表")
    return [int(v) for v in items]


def make(value: dict[str, Any], port: Any, tensor: Callable[[TensorData], Any],
         to_data: Callable[[Any], TensorData | None],
         line: Callable[[], int | None]) -> Callable[..., Any]:
    """The callable the learner receives for the handle ``value``: each call a ``compute``
    request on ``port`` made at the learner's ``line()``."""
    name, handle, label = value.get("fn"), value.get("handle"), str(value.get("label", ""))
    if name not in SIGNATURES or isinstance(handle, bool) or not isinstance(handle, int):
        raise bilingual(ValueError, f"the judge has no function {name!r}",
                        f"评测机没有函数 {name!r}")
    params = SIGNATURES[name]

    def judge_function(*args: Any, **kwargs: Any) -> Any:
        if len(args) > len(params) or set(kwargs) != set(params[len(args):]):
            raise bilingual(TypeError, f"{label}() takes ({', '.join(params)})",
                            f"{label}() 的参数是 ({', '.join(params)})")
        bound = dict(zip(params, args, strict=False)) | kwargs
        data = to_data(bound[params[0]])
        if data is None or data["dtype"] not in DTYPES:
            raise bilingual(TypeError, f"{label}(): {params[0]} must be a tensor of one of "
                            f"{', '.join(DTYPES)}", f"{label}()：{params[0]} 必须是 "
                            f"{', '.join(DTYPES)} 之一的张量")
        extra = _integers(bound[params[1]], to_data, params[1]) if len(params) > 1 else None
        try:
            out = port.compute(handle, pack(data["data"], data["dtype"]), data["dtype"],
                               list(data["shape"]), extra, line())
        except (SwitchError, RuntimeError) as exc:  # the switch's refusal, on either runtime
            raise bilingual(ValueError, str(exc), getattr(exc, "zh", None)) from None
        return tensor(TensorData(shape=list(data["shape"]), dtype=data["dtype"],
                                 data=values_of(out, data["dtype"]) or []))

    judge_function.__name__ = judge_function.__qualname__ = label or name
    return judge_function
