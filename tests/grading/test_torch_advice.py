"""torch.distributed's errors that say what to change get the rule and the change after them."""

from __future__ import annotations

import pytest
import torch

from cjudge.contract.primitives import split_rows
from cjudge.grading.torch_advice import advice
from cjudge.grading.torch_zh import in_chinese


def raised_by_split_rows(rows: int, sizes: list[int], n: int) -> str:
    with pytest.raises(RuntimeError) as raised:
        split_rows(torch.zeros(rows, 3), sizes, n)
    return str(raised.value)


@pytest.mark.parametrize(("rows", "sizes", "n", "words"), [
    (2, [], 4, "lay the tensor out so that dim 0 runs over the destination ranks"),
    (6, [1, 2], 4, "one entry per rank of the group"),
])
def test_the_judges_own_split_errors_get_their_fix(rows, sizes, n, words):
    message = raised_by_split_rows(rows, sizes, n)
    said = advice(message)
    assert said is not None and words in said[0]
    assert in_chinese(message) is not None and said[1]


def test_an_error_with_no_certain_cause_gets_none():
    assert advice("expected scalar type Float but found Double") is None
    assert advice("Tensor's dim 0 does not divide equally across group size, and more") is None
