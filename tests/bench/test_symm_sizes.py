"""bench's symmetric memory is real shared memory: a buffer past the switch's cap (which bounds
what the judge emulates in Python) still loads and stores, so every size runs."""

from __future__ import annotations

import struct

import pytest

from cjudge.switch import functions, symm
from cjudge.switch.local import LocalFunctions


def test_a_buffer_past_the_switchs_cap_works_on_shared_memory():
    numel = 4 * symm.MAX_ELEMENTS  # 256 Ki float32: a 1 MiB buffer per rank
    table = [(functions.MEMORY, {"numel": numel, "dtype": "float32"})]
    port = LocalFunctions(table, rank=0, world=2, shared=bytearray(2 * numel * 4))
    last = struct.pack("<f", 2.5)
    port.compute(0, last, "float32", [1], [symm.STORE, 1, numel - 1, 1], None)
    assert port.compute(0, b"", "float32", [1], [symm.LOAD, 1, numel - 1, 1], None) == last
    with pytest.raises(functions.FunctionError):  # still bounded by the buffer itself
        port.compute(0, b"", "float32", [1], [symm.LOAD, 1, numel, 1], None)


def test_the_switch_keeps_its_cap():
    with pytest.raises(functions.FunctionError):
        symm.buffer_of({"numel": symm.MAX_ELEMENTS + 1})
