"""Display names that cannot pass for someone else's: NFKC-normalised, written in one script, and
compared by their UTS #39 confusable skeletons (ICU's ``SpoofChecker``, with ICU's own Unicode
data), so that ``аdmin`` with a Cyrillic ``а``, ``ａｄｍｉｎ`` in full-width letters or ``adrnin``
is the same name as ``admin``."""

from __future__ import annotations

import hashlib
import re
import unicodedata
from collections.abc import Iterable
from dataclasses import dataclass

import icu

#: letters, digits, spaces, '.', '-', '_'; 2 to 32 of them after NFKC (a Chinese name may
#: have two characters)
PATTERN = re.compile(r"^[\w][\w .\-]{0,30}[\w.]$")
#: what the staff are called: no learner may appear under one of these names
STAFF_TITLES = ("admin", "administrator", "staff", "judge", "moderator", "teacher", "ta",
                "instructor", "professor", "tutor", "grader", "support", "system", "root")
SEPARATORS = re.compile(r"[ ._\-]")

_CHECKER = icu.SpoofChecker()  # configured once; ICU allows concurrent checks then
_CHECKER.setRestrictionLevel(icu.URestrictionLevel.SINGLE_SCRIPT_RESTRICTIVE)
_CHECKER.setChecks(icu.USpoofChecks.RESTRICTION_LEVEL | icu.USpoofChecks.MIXED_NUMBERS
                   | icu.USpoofChecks.INVISIBLE)


@dataclass(frozen=True)
class Refusal:
    """Why a display name is refused: a stable ``code``, the HTTP status, English and Chinese."""

    status: int
    code: str
    detail: str
    message_zh: str


BAD_FORM = Refusal(422, "bad_display_name",
                   "a display name has 2 to 32 letters, digits, spaces, '.', '-' or '_'",
                   "显示名为 2 到 32 个字母、数字、空格或 . - _")
MIXED = Refusal(422, "display_name_mixed_scripts",
                "a display name is written in one script (not, say, Latin and Cyrillic letters "
                "together) with digits of one kind",
                "显示名只能使用一种文字书写（例如不能混用拉丁字母和西里尔字母），数字也只能用一种")
RESERVED = Refusal(409, "display_name_reserved",
                   "this display name is kept for the course staff",
                   "该显示名保留给课程工作人员")
LOOKALIKE = Refusal(409, "display_name_taken",
                    "that display name is taken, or looks like one that is",
                    "该显示名已被使用，或与已有的显示名看起来相同")


def normalise(name: str) -> str:
    """``name`` in NFKC (full-width and styled letters become plain ones), its runs of
    whitespace one space, without whitespace at either end."""
    return " ".join(unicodedata.normalize("NFKC", name).split())


def form_problem(name: str) -> Refusal | None:
    """Why the normalised ``name`` cannot be a display name by its letters alone, or None."""
    if not PATTERN.match(name):
        return BAD_FORM
    if _CHECKER.check(name):
        return MIXED
    return None


def skeletons(name: str) -> frozenset[str]:
    """What ``name`` looks like, whatever its case: its UTS #39 skeleton casefolded, of the
    name as written (an upper-case ``I`` looks like an ``l``, a ``0`` like an ``O``) and
    casefolded. Names that share one look alike."""
    return frozenset(_CHECKER.getSkeleton(0, variant).casefold()
                     for variant in (name, name.casefold()))


def key(name: str) -> str:
    """A fixed-length key of ``name``'s look as written (``skeletons``), for a unique index."""
    return hashlib.blake2b(_CHECKER.getSkeleton(0, name).casefold().encode(),
                           digest_size=16).hexdigest()


def staff_like(name: str, staff_names: Iterable[str] = ()) -> bool:
    """Whether ``name``, without its separators, looks like a staff title or one of
    ``staff_names`` (``T.A.``, ``Аdmin`` and ``j-u-d-g-e`` do)."""
    bare = skeletons(SEPARATORS.sub("", name))
    return any(bare & skeletons(SEPARATORS.sub("", normalise(staff)))
               for staff in (*STAFF_TITLES, *staff_names))


def looks_like(name: str, others: Iterable[str]) -> str | None:
    """The first of ``others`` that ``name`` looks like, or None."""
    mine = skeletons(name)
    return next((other for other in others if mine & skeletons(normalise(other))), None)
