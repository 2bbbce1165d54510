"""One depth limit for a rank's result: whatever ``values.encode`` makes of a nested result, the
judge's side of the channel reads (``switch.server.result_record``), at every depth."""

from __future__ import annotations

import pytest

from cjudge.contract import values
from cjudge.switch.server import result_record


def nested(depth: int, leaf: object, tuples: bool) -> object:
    for _ in range(depth):
        leaf = (leaf,) if tuples else [leaf]
    return leaf


@pytest.mark.parametrize("tuples", [False, True])
@pytest.mark.parametrize("depth", range(values.MAX_DEPTH - 1, values.MAX_DEPTH + 4))
def test_an_encoded_result_of_any_depth_is_read_as_a_result(depth: int, tuples: bool):
    encoded = values.encode(nested(depth, 1.5, tuples), lambda obj: None)
    record = result_record({"output": encoded})
    assert record["error"] is None and record["output"] == encoded
    if depth <= values.MAX_DEPTH:
        assert list(values.leaves(encoded)) == [("[0]" * depth, 1.5)]
    else:  # cut where its items would nest too deep: a wrong answer, never a broken channel
        [(_, leaf)] = values.leaves(encoded)
        assert leaf == {"object": "tuple" if tuples else "list"}
