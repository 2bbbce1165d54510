"""Errors raised by the simulated runtime for what it does not implement."""

from __future__ import annotations

LOCAL_JUDGE = "python practice/judge.py test"


def unsupported_message(what: str) -> str:
    """A bilingual message saying ``what`` is not in the browser runtime."""
    return (
        f"{what} is not available in the browser runtime (a pure-Python stand-in for torch); "
        f"run the local judge instead: {LOCAL_JUDGE}\n"
        f"浏览器运行时（用纯 Python 模拟的 torch）不支持 {what}；请在本地评测：{LOCAL_JUDGE}"
    )


class Unsupported(NotImplementedError):
    """A call or an argument the simulated runtime does not implement."""

    def __init__(self, what: str) -> None:
        super().__init__(unsupported_message(what))
        self.what = what


class UnsupportedAttribute(AttributeError):
    """An attribute of ``torch``, ``torch.distributed`` or a tensor that the simulation lacks."""

    def __init__(self, what: str) -> None:
        super().__init__(unsupported_message(what))
        self.what = what


for _cls in (Unsupported, UnsupportedAttribute):
    _cls.__module__ = "torch"  # how a learner's traceback names them
