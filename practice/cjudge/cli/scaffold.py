"""The files ``judge.py new ID`` writes: a draft exercise whose every placeholder is marked
``TODO(author)``, so that ``judge.py check ID`` can say exactly what is left to write."""

from __future__ import annotations

from pathlib import Path

#: marks what the author still has to write (learners' own TODOs in a starter are plain "TODO")
MARK = "TODO(author)"

TOML = '''\
# exercise.toml: what the judge needs to know about this exercise. Every field is explained
# here; a line marked TODO(author) is still a placeholder, and `python practice/judge.py check
# {id}` lists them until none is left. The guide: docs/authoring.md.

# The folder's name, in kebab-case (a-z, 0-9, '-'). Never rename it once learners submit.
id = "{id}"
# The title, in English and in Chinese (both required).
title = {{ en = "{title_en}", zh = "{title_zh}" }}  # TODO(author): both titles
# The function learners write. The judge imports their file on every rank, after the process
# group exists, and calls this function once per case with that rank's input tensor.
function = "solve"  # TODO(author): the graded function's name (a Python identifier)
# How the statement and the web app show the call.
signature = "solve(t)"  # TODO(author): the call as learners see it
# "inplace": the function must leave its result in its tensor argument (the return value is
# ignored); "return": it returns a new tensor and its argument is not graded.
output = "return"  # TODO(author): "inplace" or "return"
# The torch.distributed calls learners may make; any other communication call is refused
# (forbidden_primitive, naming the call and its line). Known names: send, recv, isend, irecv,
# batch_isend_irecv, all_reduce, reduce_scatter, reduce_scatter_tensor, all_gather,
# all_gather_into_tensor, all_to_all, all_to_all_single, broadcast, reduce, gather, scatter,
# barrier.
allowed = ["send", "recv", "isend", "irecv"]  # TODO(author): the allowed calls
# The torch collective this exercise re-implements: `judge.py bench {id}` times yours against it.
builtin = "broadcast"  # TODO(author): e.g. all_reduce, all_gather, all_to_all_single
# Seconds of wall-clock time one case may run on real ranks (a hang ends as time_limit, or as
# deadlock as soon as every rank waits on something no rank will send).
time_limit_s = 5.0
# Bytes of printed output a case may produce before it ends as output_limit.
output_limit_bytes = 65536
# The seed of the CLI's inputs (`judge.py test --seed` overrides it; the server draws a secret
# seed per submission, so hidden cases cannot be learned by heart).
seed = {seed}
# While true, no front door serves the exercise (the server, the browser catalog, `judge.py
# list`), and a half-written draft cannot stop the others from loading. Delete this line once
# `judge.py check {id}` says everything else passes.
draft = true

# The cases, run in this order; grading stops at the first failing one (`--all` runs all).
# Every case has a unique `name`, a `world_size` (ranks, 1 to 64) and a `dtype` (float32,
# float64 or int64); every other key (here `numel`) is a parameter handed to grader.py as
# `params`. At least one case has `sample = true`: learners see its parameters and its result
# in full, the others only by name. Keep sizes small: the cost model (when the exercise declares
# one) scales bytes to real sizes; a case is about correctness at odd shapes.
[[cases]]
name = "sample-4-ranks"
world_size = 4
numel = 8
dtype = "float32"
sample = true

[[cases]]
name = "3-ranks-odd"
world_size = 3
numel = 7
dtype = "float64"

[[cases]]
name = "8-ranks"
world_size = 8
numel = 1000
dtype = "float32"

# The cost model: each case's trace replayed on the chapter's 8 × H100 at these sizes. `floor`
# is the lowest modelled time (at each size) and the fewest bytes the busiest rank sends (in the
# run) that any correct algorithm reaches; a run below it was mis-measured, so it is flagged and
# never ranked. Formulas of n, S, alpha, beta (docs/model.md).
[model]
topology = "h100x8"
sizes = ["4KiB", "1MB"]
# TODO(author): the floor of your collective (this is a broadcast's: the root sends S once)
floor = {{ time = "min(n-1, 1)*(alpha + S/beta)", bytes = "min(n-1, 1)*S" }}
'''

STATEMENT = '''\
TODO(author): the task, in English (Markdown; math between \\( \\) or \\[ \\]).

## What to write

```python
def solve(t): ...
```

* What `t` is on every rank (shape, dtype, how many ranks).
* What must hold when the function returns, on which ranks, in place or returned.
* Which `torch.distributed` calls are allowed, and that the others are refused.

## Bytes

How many bytes each rank sends in the intended algorithm, and the bound the judge enforces
(the same formula as grader.py's `bytes_bound`): over it, a correct answer is `over_budget`.

## Example

A small worked example: every rank's input before, and its result after.
'''

STATEMENT_ZH = '''\
TODO(author): 用中文写题目（Markdown；公式写在 \\( \\) 或 \\[ \\] 之间）。

## 要写什么

```python
def solve(t): ...
```

* 每个 rank 上的 `t` 是什么（形状、dtype、rank 数）。
* 函数返回时，哪些 rank 上必须满足什么；原地修改还是返回新张量。
* 允许哪些 `torch.distributed` 调用，其他调用会被拒绝。

## 字节数

预期算法中每个 rank 发送多少字节，以及评测机的上限（与 grader.py 的 `bytes_bound`
一致）：超出上限时，即使答案正确也判为 `over_budget`。

## 示例

一个小例子：每个 rank 之前的输入与之后的结果。
'''

STARTER = '''\
"""TODO(author): one line on the task, in English and Chinese, then how to run the tests:

Run the tests: "Run all tests" in the browser, or python practice/judge.py test {id} [FILE]
"""

import torch
import torch.distributed as dist


def solve(t):
    """TODO(author): what the function must do (English and Chinese)."""
    rank, n = dist.get_rank(), dist.get_world_size()
    # TODO: the learner's part (leave hints here, not the answer)
'''

SOLUTION = '''\
"""Reference solution of {id} (private: never shown to learners)."""

import torch
import torch.distributed as dist


def solve(t):
    """TODO(author): the reference: it must be accepted by every case."""
    raise NotImplementedError("TODO(author): the reference solution")
'''

GRADER = '''\
"""Trusted grading code for {id}: inputs, expected results, byte bound, diagnosis.

It runs on the judge's side only: learners' code never sees it, and on the server the expected
values never enter the sandbox. A tensor is a dict {{"shape": [...], "dtype": ..., "data":
[flat values, row-major]}}. Every hook is given the case first, typed once by the kit:
``case.world``, ``case.dtype``, ``case.itemsize``, ``case["numel"]`` (an int). The guide:
docs/authoring.md.
"""

from __future__ import annotations

import random

from cjudge.kit.case import Case


def make_inputs(case: Case, rng: random.Random) -> list[dict]:
    """Every rank's input tensor, one dict per rank, from the seeded ``rng`` only.

    Prefer the kit's exact values (cjudge.kit.pieces.exact_inputs, or refined for your own):
    sums of them are exact in the case's dtype in any order, so a wrong element can be traced
    back to the rank whose contribution is missing, and no narrower float holds them."""
    raise NotImplementedError("TODO(author): make_inputs")


def expected(case: Case, inputs: list[dict]) -> list[dict]:
    """What every rank must end with (its tensor for "inplace", its return value for "return")."""
    raise NotImplementedError("TODO(author): expected")


def bytes_bound(case: Case) -> int:
    """The most bytes any one rank may send (receives count nothing); above it a correct
    answer is ``over_budget``. Allow the intended algorithm's volume, with room for uneven
    splits, and say the same formula in the statement."""
    raise NotImplementedError("TODO(author): bytes_bound")


def diagnose(case: Case, inputs: list[dict], rank: int, index: int,
             got: float) -> tuple[str, str] | None:
    """Optional: why element ``index`` of ``rank``'s result is ``got`` (English, Chinese), e.g.
    "rank 2's contribution is missing"; None keeps the plain expected-vs-got message."""
    return None
'''

WRONG = '''\
# expect: wrong_answer
# TODO(author): a mistake learners really make, and the verdict it must get (first line:
# wrong_answer, runtime_error, deadlock, forbidden_primitive, over_budget, time_limit, ...).
import torch
import torch.distributed as dist


def solve(t):
    return t
'''


def files_for(exercise_id: str, seed: int) -> dict[str, str]:
    """The draft's files, by path relative to its folder."""
    fields = {"id": exercise_id, "seed": seed, "title_en": MARK + ": English title",
              "title_zh": MARK + "：中文标题"}
    return {
        "exercise.toml": TOML.format(**fields),
        "statement.md": STATEMENT,
        "statement.zh.md": STATEMENT_ZH,
        "starter.py": STARTER.format(**fields),
        "solution.py": SOLUTION.format(**fields),
        "grader.py": GRADER.format(**fields),
        "wrong/one.py": WRONG,
    }


def write_draft(folder: Path, seed: int) -> list[Path]:
    """Create ``folder`` with a draft exercise; the files written."""
    folder.mkdir(parents=True)
    written = []
    for relative, text in files_for(folder.name, seed).items():
        path = folder / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
        written.append(path)
    return written
