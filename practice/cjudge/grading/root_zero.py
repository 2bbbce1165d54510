"""A wrong answer from code that assumes the root is rank 0: on a case whose root (``src``,
``dst``, ``root``) is another rank, rank 0 alone played the root's part (it only sent, for a
broadcast or a scatter; it only received, for a reduce or a gather) while the case's root did
not. The message then names the root and how to count from it."""

from __future__ import annotations

from collections.abc import Mapping

from ..switch.trace import SwitchTrace

ROOT_ARGUMENTS = ("src", "dst", "root")
#: what the root does in a rooted collective's point-to-point form
ROOT_ROLE = {"broadcast": "send", "scatter": "send", "reduce": "recv", "gather": "recv"}


def _roles(trace: SwitchTrace) -> dict[int, set[str]]:
    """Each rank's kinds of graded point-to-point call."""
    roles: dict[int, set[str]] = {}
    for req in trace["requests"]:
        if req["graded"] and req["kind"] in ("send", "recv"):
            roles.setdefault(req["rank"], set()).add(req["kind"])
    return roles


def _root(params: Mapping[str, int | str]) -> tuple[str, int] | None:
    """The case's root argument (the first of ``ROOT_ARGUMENTS`` it gives as an integer) and
    its rank; None without one."""
    for name in ROOT_ARGUMENTS:
        root = params.get(name)
        if isinstance(root, int):
            return name, root
    return None


def root_zero(builtin: str, params: Mapping[str, int | str], trace: SwitchTrace
              ) -> tuple[str, str] | None:
    """(English, Chinese) naming the case's root when rank 0 alone acted as the root instead of
    it; None otherwise."""
    found, role = _root(params), ROOT_ROLE.get(builtin)
    if found is None or role is None or found[1] == 0:
        return None
    (name, root), roles = found, _roles(trace)
    acting = [r for r, kinds in roles.items() if kinds == {role}]
    if acting != [0] or roles.get(root) == {role}:
        return None
    did, did_zh = ("only sends", "只发送") if role == "send" else ("only receives", "只接收")
    return (f"rank 0 {did}, as the root does, but this case's root is {name} = {root}: your "
            f"code assumes the root is rank 0; count ranks from the root, "
            f"v = (rank - {name}) % n, and map a peer back with (v + {name}) % n",
            f"rank 0 {did_zh}，像根那样行事，但本用例的根是 {name} = {root}：你的代码假定根是 "
            f"rank 0；请从根开始给 rank 编号，v = (rank - {name}) % n，再用 (v + {name}) % n "
            "换算回对端")
