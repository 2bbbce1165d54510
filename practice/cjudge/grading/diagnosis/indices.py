"""A departing send that carries another piece than the reference's, read as an index mistake:
the piece the rank's own global rank picks where the reference's ring uses the rank's place in
it (hierarchical rings: its node index across the nodes, its local rank inside a node), or an
index one step off (the ring all-reduce's indices in a reduce-scatter)."""

from __future__ import annotations

from collections.abc import Mapping

from .said import Cause


def _ring(rank: int, dst: int, world: int, params: Mapping[str, int | str]) -> tuple[int, int, str, str]:
    """The ring a send travels (``rank`` to ``dst``): (its length, the rank's place in it, what
    that place is called in English and Chinese). With ``ranks_per_node`` g: across the nodes
    (a rail of world/g ranks, place ⌊r/g⌋) or inside a node (g ranks, place r mod g)."""
    g = params.get("ranks_per_node")
    if not isinstance(g, int) or g < 1 or world % g:
        return world, rank, "rank", "rank"
    if dst // g != rank // g:
        return world // g, rank // g, "node index", "节点序号"
    return g, rank % g, "local rank", "本地 rank 序号"


def index_mistake(ours: int, theirs: int, rank: int, dst: int, world: int,
                  params: Mapping[str, int | str], noun: tuple[str, str]) -> Cause | None:
    """Why the rank sends piece ``ours`` of its ring where the reference sends ``theirs`` to
    ``dst``: the global rank used for the rank's place in a smaller ring, or an index one step
    off; None when the shift says neither."""
    count, place, called, called_zh = _ring(rank, dst, world, params)
    shift = (ours - theirs) % count
    if count < 2 or not shift:
        return None
    n, n_zh = noun
    if place != rank and (rank - place) % count == shift:
        return Cause(
            f"; your {n} index follows the global rank {rank}, where the ring uses the rank's "
            f"{called} {place}: use the node-local index (local rank r mod g inside a node, node "
            "⌊r/g⌋ on a rail), not the global rank",
            f"；你的{n_zh}下标随全局 rank {rank} 而定，而这个环用的是它的{called_zh} {place}："
            "应使用节点内的局部序号（节点内用本地 rank r mod g，跨节点的 rail 上用节点号 ⌊r/g⌋），"
            "而不是全局 rank", named=True)
    if shift in (1, count - 1):
        way, way_zh = ("ahead of", "多") if shift == 1 else ("behind", "少")
        return Cause(
            f"; {n} {ours} is one {way} {theirs} (mod {count}): your indices are one step off; "
            "shift each index by one",
            f"；第 {ours} {n_zh}比第 {theirs} {n_zh}{way_zh}一（模 {count}）：你的下标差了一步，"
            "把每个下标移一位", named=True)
    return None
