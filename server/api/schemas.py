"""Request and response bodies of the HTTP API."""

from __future__ import annotations

from datetime import datetime
from types import UnionType
from typing import Any, Literal, NotRequired, Union, get_args, get_origin, get_type_hints

from pydantic import BaseModel, ConfigDict, Field, RootModel
from typing_extensions import TypedDict, is_typeddict

from cjudge.contract.verdict_json import CaseResult, VerdictJSON
from cjudge.contract.verdicts import Verdict

from ..passwords import MAX_LENGTH, MIN_LENGTH


class Credentials(BaseModel):
    """A username and password, to register or log in."""

    username: str = Field(pattern=r"^[A-Za-z0-9_.-]{3,32}$")
    password: str = Field(min_length=MIN_LENGTH, max_length=MAX_LENGTH)


class PasswordCheckIn(BaseModel):
    """A password being typed into the sign-up form, and the name typed beside it (if any)."""

    username: str = Field(default="", max_length=64)
    password: str = Field(max_length=MAX_LENGTH)


class AdviceOut(BaseModel):
    """One line of zxcvbn's advice: its stable ``code`` (null for a message this server has no
    code for) and its English ``text``."""

    code: str | None
    text: str


class PasswordCheckOut(BaseModel):
    """What sign-up would say of a password: ``acceptable``, or why not (shorter than
    ``min_length``, or zxcvbn's ``score`` below ``min_score``) and zxcvbn's advice."""

    acceptable: bool
    too_short: bool
    score: int
    min_score: int
    min_length: int
    warning: AdviceOut | None
    suggestions: list[AdviceOut]


class Registration(Credentials):
    """A new account: credentials, and the invite code when sign-up needs one."""

    invite: str | None = Field(default=None, max_length=128)


class UserOut(BaseModel):
    """A user as the API shows it."""

    id: int
    username: str
    role: str


class AuthOut(BaseModel):
    """The logged-in user and a bearer token (also set as an httpOnly cookie)."""

    user: UserOut
    token: str


class ExerciseSummary(BaseModel):
    """An exercise in the list."""

    id: str
    title: dict[str, str]
    content_hash: str
    judge_version: str  # the server's kernel (cjudge.__version__): the page compares its own
    track: str | None = None  # the catalog's track (cjudge.exercise.exercises.TRACKS), its order there
    order: int | None = None
    prerequisites: list[str] = []  # exercises to solve first
    difficulty: str | None = None  # intro, core or advanced (cjudge.exercise.exercises.DIFFICULTIES)
    chapter: list[str] = []  # the chapter's sections it comes from, by title


class ExerciseDetail(ExerciseSummary):
    """An exercise with its statement in both languages, its starter and its sample cases."""

    statement: dict[str, str]
    starter: str
    samples: list[dict[str, Any]]


class SubmissionIn(BaseModel):
    """A submission: the exercise id and the learner's file."""

    exercise: str = Field(min_length=1, max_length=64)
    code: str
    filename: str = Field(default="solution.py", pattern=r"^[A-Za-z0-9_.-]{1,60}\.py$")


class SubmissionCreated(BaseModel):
    """The answer to a new submission (202): poll it, or follow its events."""

    id: int
    status: str
    queue_position: int | None = None  # 1: next to be judged
    remaining_this_minute: int | None = None  # submissions the caller may still make this minute


class SubmissionSummary(BaseModel):
    """A submission in a history list."""

    id: int
    exercise: str
    user_id: int
    status: str
    verdict: Verdict | None
    created_at: datetime
    finished_at: datetime | None
    content_hash: str  # the exercise's version it was judged on (see /api/exercises/{id})
    late: bool = False  # made after its exercise's deadline


class EarlierVerdict(BaseModel):
    """A verdict a submission had before a regrade: when it was given, by which judge, and
    when it was regraded."""

    verdict: Verdict | None
    finished_at: datetime | None
    judge_version: str | None
    regraded_at: datetime


def _from_kernel(typed: Any, required: tuple[str, ...] = ()) -> Any:
    """A kernel TypedDict of the verdict JSON (``cjudge.contract.verdict_json``) as pydantic reads it
    (``typing_extensions.TypedDict``: before Python 3.12 it refuses ``typing``'s), so /docs
    shows the kernel's one definition: its fields and their types (a ``verdict`` as one of the
    codes), nested TypedDicts converted too; a field absent stays absent, a field the kernel
    does not define is left out of the answer (one an older judge stored, too), and every field
    but ``required`` may be missing (a verdict stored by an older judge lacks some)."""
    hints = get_type_hints(typed)
    fields = {key: NotRequired[_converted(hint)] if key not in required else _converted(hint)
              for key, hint in hints.items()}
    made: Any = TypedDict  # a class made at runtime, which no type checker follows
    out = made(typed.__name__, fields)
    out.__doc__, out.__pydantic_config__ = typed.__doc__, ConfigDict(extra="ignore")
    return out


_CONVERTED: dict[Any, Any] = {}


def _converted(hint: Any) -> Any:
    """``hint`` with each kernel TypedDict in it converted (:func:`_from_kernel`); a TypedDict
    that holds itself (a case's ``smallest``) holds a plain object there."""
    if is_typeddict(hint):
        if hint not in _CONVERTED:
            _CONVERTED[hint] = dict[str, Any]  # while its own fields are converted
            _CONVERTED[hint] = _from_kernel(hint)
        return _CONVERTED[hint]
    args = get_args(hint)
    if not args or get_origin(hint) is Literal:
        return hint
    if get_origin(hint) in (Union, UnionType):
        return Union[tuple(_converted(a) for a in args)]  # noqa: UP007 - built from a tuple
    return get_origin(hint)[tuple(_converted(a) for a in args)]


class CaseOutline(RootModel[_from_kernel(CaseResult, required=("name", "verdict"))]):  # type: ignore[misc]  # a type made at runtime
    """A graded case of the verdict JSON: the kernel's ``cjudge.contract.verdict_json.CaseResult``."""


class VerdictOut(RootModel[_from_kernel(VerdictJSON, required=("verdict",))]):  # type: ignore[misc]  # a type made at runtime
    """The verdict JSON of a finished submission, as the CLI's ``--json`` and the browser's:
    the kernel's ``cjudge.contract.verdict_json.VerdictJSON`` (admins also see its ``seed``: the hidden
    cases' inputs follow from it)."""

    @property
    def cases(self) -> list[CaseOutline]:
        """Its graded cases, each as the event stream sends it."""
        return [CaseOutline.model_validate(case) for case in self.root.get("cases", [])]


class SubmissionOut(SubmissionSummary):
    """A submission in full: the verdict JSON when done, the cases graded so far before."""

    result: VerdictOut | None
    cases_so_far: list[CaseOutline]
    code: str
    filename: str
    attempts: int
    started_at: datetime | None
    queue_ms: float | None
    grading_ms: float | None
    queue_position: int | None = None  # while queued; 1: next to be judged
    worker_id: str | None = None  # admins only
    judge_log: str | None = None  # admins only
    history: list[EarlierVerdict] = []  # its verdicts before each regrade, oldest first


class ValidationIssue(BaseModel):
    """One reason a request was malformed (never the input itself)."""

    loc: list[str | int]
    msg: str
    type: str


class ErrorOut(BaseModel):
    """Every error answer, from every layer: a stable ``code``, ``detail`` in English (a
    sentence, or a 422's issues) and ``message_zh`` in Chinese; some codes add fields
    (``retry_after``, ``feedback``, ``request_id``)."""

    model_config = ConfigDict(extra="allow")

    code: str
    detail: str | list[ValidationIssue]
    message_zh: str
    retry_after: int | None = None
    feedback: str | None = None
    request_id: str | None = None
