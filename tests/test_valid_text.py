"""``valid_text``: every string of a runtime's answer made valid UTF-8, tensors' data untouched.

The walk passes numbers over without a call each; these tests hold it to the plain definition:
a string escaped where it holds a lone surrogate, lists and dicts walked (keys too), a tensor's
``data`` left as it is, anything else kept.
"""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from cjudge.contract.protocol import valid_text

#: strings with lone surrogates among the others
text = st.text(st.one_of(st.characters(), st.characters(min_codepoint=0xD800,
                                                        max_codepoint=0xDFFF,
                                                        categories=["Cs"])), max_size=6)
leaves = st.one_of(text, st.integers(), st.floats(), st.booleans(), st.none())
tensors = st.fixed_dictionaries({"shape": st.lists(st.integers(0, 3), max_size=2),
                                 "data": st.lists(leaves, max_size=4)})
values = st.recursive(leaves, lambda inner: st.one_of(
    st.lists(inner, max_size=4), st.dictionaries(text, inner, max_size=4), tensors),
    max_leaves=30)


def plainly(value: Any) -> Any:
    """The definition, walked one call a value."""
    if isinstance(value, str):
        return value.encode("utf-8", "backslashreplace").decode()
    if isinstance(value, list):
        return [plainly(v) for v in value]
    if isinstance(value, dict):
        return {plainly(k): v if k == "data" and "shape" in value else plainly(v)
                for k, v in value.items()}
    return value


@settings(max_examples=300, deadline=None, derandomize=True, database=None)
@given(values)
def test_every_string_is_made_valid_and_nothing_else_changes(value: Any) -> None:
    assert repr(valid_text(value)) == repr(plainly(value))  # repr: NaN equals itself


def test_a_lone_surrogate_is_escaped_in_keys_values_and_lists_but_not_in_data() -> None:
    raw = {"a\ud800": ["x\udfff", 1, None, {"k": "\ud83d"}],
           "t": {"shape": [1], "data": ["\ud800"]}}
    assert valid_text(raw) == {"a\\ud800": ["x\\udfff", 1, None, {"k": "\\ud83d"}],
                               "t": {"shape": [1], "data": ["\ud800"]}}

