# What of Pyodide's pyodide.ffi the browser's Python calls, with Pyodide's own signatures
# (web/typings/README.md).

from collections.abc import Awaitable
from typing import Any, TypeVar

T = TypeVar("T")

# a Python value as a JavaScript one (a JsProxy, or a number, a string...): untyped in Pyodide too
def to_js(obj: Any, /) -> Any: ...

# the awaitable's result, this stack suspended until it settles (JSPI)
def run_sync(x: Awaitable[T]) -> T: ...
