"""An all_to_all's split sizes against the reference's: the switch records them on each request,
and the diagnosis names a swap (input's for output's) apart from a count that is only wrong."""

from __future__ import annotations

from cjudge.grading.diagnosis.splits import departure, elements
from cjudge.switch.core import Switch
from cjudge.switch.trace import SwitchTrace

ALGO = ("the reference", "参考解")


def exchange(counts: list[list[int]]) -> SwitchTrace:
    """The trace of one float32 all_to_all where rank r sends ``counts[r][p]`` elements to p."""
    s = Switch(len(counts), frozenset({"all_to_all"}))
    for r in range(len(counts)):
        s.begin(r)
    for r, row in enumerate(counts):
        s.post_collective(r, 0, "all_to_all", bytes(4 * sum(row)), "float32", line=7,
                          api="all_to_all_single", splits=[4 * c for c in row])
    return s.trace()


#: rank r sends rank p this many elements; rank 1 receives [2, 1, 5] (its column)
REFERENCE = exchange([[1, 2, 3], [4, 1, 6], [2, 5, 1]])


def test_the_request_keeps_its_splits_in_elements() -> None:
    assert [elements(r) for r in REFERENCE["requests"]] == [(1, 2, 3), (4, 1, 6), (2, 5, 1)]


def test_splits_that_are_what_the_rank_receives_are_named_swapped() -> None:
    en, zh = departure((2, 1, 5), (4, 1, 6), REFERENCE, REFERENCE["requests"][1]["id"],
                       "all_to_all_single", ALGO)
    assert en.startswith("its input_split_sizes and output_split_sizes are swapped: it sends "
                         "rank 0 2 elements, the number rank 0 sends it, where the reference "
                         "sends 4")
    assert "传反了：它发给 rank 0 2 个元素" in zh


def test_other_wrong_splits_say_which_rank_gets_what() -> None:
    en, zh = departure((5, 1, 5), (4, 1, 6), REFERENCE, REFERENCE["requests"][1]["id"],
                       "all_to_all_single", ALGO)
    assert en == "its input_split_sizes differ: it sends rank 0 5 elements where the reference sends 4"
    assert zh == "它的 input_split_sizes 不对：它发给 rank 0 5 个元素，而参考解发 4 个"
