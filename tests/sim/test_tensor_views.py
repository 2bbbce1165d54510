"""Views share storage: in-place ops through chunk/split/narrow/slices/transposes change the base."""

from __future__ import annotations

import pytest

from .helpers import torch


def test_chunk_views_accumulate_into_the_base_as_the_chapter_ring_does():
    t = torch.arange(10, dtype=torch.float32)
    chunks = list(t.chunk(3))
    assert [c.tolist() for c in chunks] == [[0, 1, 2, 3], [4, 5, 6, 7], [8, 9]]
    chunks[1] += torch.ones(4)
    chunks[2].copy_(torch.tensor([-1.0, -2.0]))
    assert t.tolist() == [0, 1, 2, 3, 5, 6, 7, 8, -1, -2]


def test_chunk_sizes_follow_torch_including_fewer_chunks_than_asked():
    assert [c.numel() for c in torch.arange(10).chunk(4)] == [3, 3, 3, 1]
    assert [c.numel() for c in torch.arange(3).chunk(5)] == [1, 1, 1]
    assert [c.numel() for c in torch.arange(5).chunk(3)] == [2, 2, 1]


def test_split_narrow_and_slices_are_views():
    t = torch.zeros(8)
    a, b = t.split([3, 5])
    b.fill_(2)
    t.narrow(0, 1, 2).add_(1)
    t[6:].mul_(3)
    assert t.tolist() == [0, 1, 1, 2, 2, 2, 6, 6]
    assert [p.tolist() for p in t.split(3)] == [[0, 1, 1], [2, 2, 2], [6, 6]]


def test_column_and_row_indexing_write_through():
    m = torch.arange(12.0).view(3, 4)
    col = m[:, 1]
    assert col.tolist() == [1, 5, 9] and not col.is_contiguous()
    col += 100
    m[2] = 0
    m[0, 3] = -1
    assert m.tolist() == [[0, 101, 2, -1], [4, 105, 6, 7], [0, 0, 0, 0]]


def test_transpose_t_and_contiguous():
    m = torch.arange(6).view(2, 3)
    mt = m.t()
    assert mt.shape == (3, 2) and mt.tolist() == [[0, 3], [1, 4], [2, 5]]
    assert not mt.is_contiguous()
    c = mt.contiguous()
    assert c.is_contiguous() and c.view(-1).tolist() == [0, 3, 1, 4, 2, 5]
    c[0, 0] = 99  # a copy: the base is untouched
    assert m[0, 0].item() == 0
    mt[0, 1] = 42  # a view: the base changes
    assert m[1, 0].item() == 42
    assert m.transpose(0, 1).tolist() == mt.tolist()


def test_view_needs_compatible_strides_but_reshape_copies():
    mt = torch.arange(6).view(2, 3).t()
    with pytest.raises(RuntimeError, match="view size is not compatible"):
        mt.view(6)
    assert mt.reshape(6).tolist() == [0, 3, 1, 4, 2, 5]
    assert mt.flatten().tolist() == [0, 3, 1, 4, 2, 5]
    m = torch.arange(24).view(2, 3, 4)
    assert m.view(6, -1).shape == (6, 4)
    with pytest.raises(RuntimeError, match="invalid for input of size 24"):
        m.view(5, -1)


def test_flatten_of_a_contiguous_tensor_is_a_view():
    m = torch.zeros(2, 3)
    m.flatten()[4] = 7
    assert m.tolist() == [[0, 0, 0], [0, 7, 0]]


def test_strided_slices_and_negative_indices():
    t = torch.arange(10)
    evens = t[::2]
    evens.zero_()
    assert t.tolist() == [0, 1, 0, 3, 0, 5, 0, 7, 0, 9]
    assert t[-1].item() == 9 and t[-3:].tolist() == [7, 0, 9]
    with pytest.raises(IndexError, match="out of bounds"):
        t[10]


def test_in_place_op_on_an_expanded_tensor_is_refused_like_torch():
    e = torch.zeros(1).expand(3)
    assert e.tolist() == [0, 0, 0]
    with pytest.raises(RuntimeError, match="single memory location"):
        e.add_(1)


def test_boolean_mask_and_index_lists_copy():
    t = torch.tensor([3, -1, 4, -1, 5])
    picked = t[t > 0]
    assert picked.tolist() == [3, 4, 5]
    picked[0] = 0
    assert t[0].item() == 3
    t[t < 0] = 0
    assert t.tolist() == [3, 0, 4, 0, 5]
    assert t[[4, 0]].tolist() == [5, 3]


def test_unsqueeze_squeeze_permute_and_iteration():
    m = torch.arange(6).view(2, 3)
    assert m.unsqueeze(0).shape == (1, 2, 3) and m.unsqueeze(-1).shape == (2, 3, 1)
    assert m.unsqueeze(1).squeeze().shape == (2, 3)
    assert m.permute(1, 0).tolist() == m.t().tolist()
    assert [row.tolist() for row in m] == [[0, 1, 2], [3, 4, 5]]
    assert len(m) == 2 and m[None].shape == (1, 2, 3) and m[..., 1].tolist() == [1, 4]
