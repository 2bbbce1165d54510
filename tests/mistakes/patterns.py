"""Which corpus files show each of issue 38's six ways a message failed to name its cause, now
mechanisms of ``cjudge.grading.diagnosis``: a file is listed under a pattern only where its message comes
from that mechanism (its ``# names:`` lines, asserted by :mod:`.test_mistakes`, say what it names).

1. Tolerance-aware evidence: correct calls that differ from the reference's in the last bits
   match at the exercise's tolerance (``diagnosis.values.same``); the fault after them is named.
2. A draw without coincidences: the failing case's evidence is rerun on a generic draw
   (``diagnosis.generic``); a recognition the sample's values fake is dropped (identity weights,
   a gradient twice its parameters, an unwritten 0 read as the input's element 0), one that
   holds on any draw (a scale by n) is kept.
3. What the judge's functions were given (``diagnosis.given``): another microbatch's or layer's
   input (the forward call whose input it was; the gather that was never made), a buffer used
   before the request that fills it completed.
4. over_budget by collective kind and by loads (``budget.against_reference``), never a load
   called a send, with the call to make instead.
5. Deadlock advice (``switch.explain``): the cycle's shape matched to its fix (non-blocking
   sends or parity, a step count, tags, the source a receive should name).
6. Local faults by structure when every exchange matched (``diagnosis.structure``, a grader's
   catalogued mistake): reverse order, the first non-finite element, a missing rescale, a row
   normalised by the unbiased variance.
"""

from __future__ import annotations

#: pattern -> corpus files (relative to ``tests/mistakes``)
PATTERNS: dict[int, list[str]] = {
    1: ["allreduce_compose/last_bits_then_mean.py", "ring_allreduce/last_bits_then_mean.py",
        "sequence_parallel/last_bits_then_no_norm.py", "tp_mlp/last_bits_then_mean.py"],
    2: ["tp_mlp/gelu_after_all_reduce.py", "zero1_step/averages_twice.py",
        "alltoall_p2p/sends_from_the_result.py",
        "allreduce_compose/divides_before_exchange.py", "bucketed_allreduce/averages_twice.py"],
    3: ["pipeline_1f1b/backward_gets_latest_stash.py",
        "pipeline_gpipe/computes_before_irecv_waited.py",
        "pipeline_gpipe/feeds_previous_microbatch.py",
        "fsdp_prefetch/layer_before_gather_waited.py", "fsdp_prefetch/uses_prefetched_layer.py",
        "fsdp_prefetch/prefetch_stops_one_short.py"],
    4: ["fsdp_prefetch/gathers_with_the_list_form.py", "oneshot_twoshot/loads_whole_buffers.py",
        "zero1_step/gathers_every_gradient.py"],
    5: ["ring_allreduce/blocking_send_to_the_right.py", "all_gather/cuda_habits_send_first.py",
        "double_binary_tree/tags_by_piece_not_tree.py",
        "reduce_scatter/root_rank_one_step_short.py", "ring_allreduce/receives_from_the_right.py",
        "pipeline_gpipe/receives_from_next_stage.py", "all_gather/irecv_from_the_right.py"],
    6: ["bucketed_allreduce/split_back_reversed.py", "ddp_overlap/buckets_split_back_reversed.py",
        "ring_attention/exp_without_running_max.py", "ring_attention/out_never_rescaled.py",
        "sequence_parallel/unbiased_variance.py"],
}
