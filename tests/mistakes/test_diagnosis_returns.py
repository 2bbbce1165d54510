"""A wrong returned value names the line it was returned from, only where the source leaves no
doubt: one ``return`` statement, or none at all."""

from __future__ import annotations

import pytest

from cjudge.grading.diagnosis.returns import return_lines

from .corpus import HERE
from .test_mistakes import failing_case

NESTED = """
def f(x):
    def helper(y):
        return y + 1
    g = lambda z: z
    class C:
        def m(self):
            return 3
    if x:
        return helper(x)
"""


@pytest.mark.parametrize(("code", "lines"), [
    (NESTED, [10]),  # the nested function's, lambda's and method's returns are not f's
    ("def f(x):\n    if x:\n        return 1\n    return 2\n", [3, 4]),
    ("def f(x):\n    x.add_(1)\n", []),
    ("def f(x):\n    yield x\n    return 1\n", None),  # a generator: its return is not a value
    ("def g(x):\n    return x\n", None),  # no such function
    ("def f(x):\n    return 1\ndef f(x):\n    return 2\n", None),  # defined twice
    ("def f(x:\n", None),  # does not parse
])
def test_return_lines_are_the_functions_own(code: str, lines: list[int] | None) -> None:
    assert return_lines(code, "f") == lines


def test_a_wrong_returned_value_names_its_only_return_line() -> None:
    _, case = failing_case(HERE / "pipeline_gpipe" / "empty_list_elsewhere.py")
    assert case["message"].endswith("The function returned it at line 26, its only return")
    assert case["message_zh"].endswith("该函数在第 26 行（它唯一的 return）返回了这个值")


def test_a_function_with_several_returns_gets_no_line() -> None:
    # modeled_time returns from one branch per algorithm: the source does not say which ran
    _, case = failing_case(HERE / "alpha_beta" / "tree_rounds_not_rounded_up.py")
    assert "returned it at line" not in case["message"]
