"""A call enters the switch's record under one name, whatever torch version or runtime named it
(``primitives.ALIASES``), and every message names a recorded call one way (``call_name``)."""

from __future__ import annotations

import pytest

from cjudge.contract.primitives import ALIASES, CANONICAL, PROCESS_GROUP_METHODS, call_name
from cjudge.switch.core import Forbidden, Switch
from cjudge.switch.explain import deadlock_facts, deadlock_message

F32 = b"\0" * 16


def _switch(allowed: frozenset[str]) -> Switch:
    s = Switch(2, allowed)
    for rank in range(2):
        s.begin(rank)
    return s


#: every alias and the kind of call it makes
KINDS = {"reduce_scatter_single": "reduce_scatter", "_reduce_scatter_base": "reduce_scatter",
         "all_gather_single": "all_gather", "_all_gather_base": "all_gather",
         "ProcessGroup.reduce_scatter_single": "reduce_scatter",
         "ProcessGroup.all_gather_single": "all_gather"}


def test_the_aliases_are_those_torch_and_the_runtimes_use():
    assert set(ALIASES) == set(KINDS)


@pytest.mark.parametrize(("api", "kind"), KINDS.items())
def test_an_alias_is_recorded_and_refused_under_its_one_name(api, kind):
    name = ALIASES[api]
    assert kind in (CANONICAL.get(name), PROCESS_GROUP_METHODS.get(name.removeprefix("ProcessGroup.")))
    s = _switch(frozenset({kind}))
    s.post_collective(0, 0, kind, F32, "float32", line=3, api=api, op="sum")
    [req] = s.trace()["requests"]
    assert req["api"] == name
    refusing = _switch(frozenset({"send", "recv"}))
    with pytest.raises(Forbidden) as refused:
        refusing.post_collective(0, 0, kind, F32, "float32", line=3, api=api, op="sum")
    assert refused.value.api == name
    assert [r["api"] for r in refusing.trace()["refused"]] == [name]


@pytest.mark.parametrize(("api", "kind", "said"), [
    ("reduce_scatter_tensor", "reduce_scatter", "reduce_scatter_tensor"),
    ("isend", "send", "isend"),
    ("batch_isend_irecv", "recv", "batch_isend_irecv"),  # both directions
    ("ProcessGroup.allreduce", "all_reduce", "ProcessGroup.allreduce (all_reduce)"),
    ("ProcessGroup._allgather_base", "all_gather", "ProcessGroup._allgather_base (all_gather)"),
    ("all_reduce", "broadcast", "broadcast"),  # a name of another kind of call: the kind's
    ("rm -rf /", "all_gather", "all_gather_into_tensor"),  # free text from a rank: never said
    ("", "recv", "recv/irecv"),
    ("symm.read", "symm_read", "symm.read"),
])
def test_a_message_names_a_call_as_the_learner_wrote_it_or_by_its_kind(api, kind, said):
    assert call_name(api, kind) == said


def test_a_deadlock_names_each_call_as_the_learner_wrote_it():
    s = _switch(frozenset({"all_gather", "all_reduce"}))
    a = s.post_collective(0, 0, "all_gather", F32, "float32", line=4, api="all_gather")
    b = s.post_collective(1, 0, "all_reduce", F32, "float32", line=9,
                          api="ProcessGroup.allreduce", op="sum")
    assert not s.wait(0, a) and not s.wait(1, b) and s.deadlocked()
    s.mark_deadlock()
    en, _ = deadlock_message(deadlock_facts(s.trace(), [{"rank": r, "state": "blocked"}
                                                        for r in (0, 1)]))  # type: ignore[misc]
    assert "rank 0 waits in all_gather (line 4) while rank 1 waits in ProcessGroup.allreduce " \
           "(all_reduce) (line 9)" in en
