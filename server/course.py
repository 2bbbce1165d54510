"""What a course needs beside the queue: display names, each submission's score (for
leaderboards) and every version of each exercise the server has served."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import BigInteger, Column, Float, Index, Text
from sqlmodel import Field, SQLModel

from .models import utcnow


class Profile(SQLModel, table=True):
    """How a learner appears on leaderboards: ``display_name``, or anonymous while it is None."""

    user_id: int = Field(foreign_key="user.id", primary_key=True)
    display_name: str | None = Field(default=None, max_length=32)
    display_key: str | None = Field(default=None, max_length=32, unique=True)  # casefolded
    updated_at: datetime = Field(default_factory=utcnow)


class SubmissionScore(SQLModel, table=True):
    """A finished submission's verdict and measures, written when its verdict is (again after a
    re-grade): what leaderboards rank without reading every verdict JSON."""

    __tablename__ = "submission_score"
    __table_args__ = (Index("ix_submission_score_exercise_verdict", "exercise_id", "verdict"),)

    submission_id: int = Field(foreign_key="submission.id", primary_key=True)
    exercise_id: str = Field(max_length=64)
    user_id: int = Field(foreign_key="user.id", index=True)
    verdict: str = Field(max_length=32)
    content_hash: str = Field(max_length=128)
    model_time_s: float | None = Field(default=None, sa_column=Column(Float))
    model_size: int | None = Field(default=None, sa_column=Column(BigInteger))
    bytes_sent: int | None = Field(default=None, sa_column=Column(BigInteger))
    headline_case: str | None = Field(default=None, max_length=128)
    submitted_at: datetime
    scored_at: datetime = Field(default_factory=utcnow)


class ExerciseVersion(SQLModel, table=True):
    """An exercise's published content as it was when the server first served ``content_hash``:
    a submission's hash keeps naming what its learner was asked."""

    __tablename__ = "exercise_version"

    exercise_id: str = Field(max_length=64, primary_key=True)
    content_hash: str = Field(max_length=128, primary_key=True)
    title_en: str
    title_zh: str
    statement_en: str = Field(sa_column=Column(Text, nullable=False))
    statement_zh: str = Field(sa_column=Column(Text, nullable=False))
    first_served_at: datetime = Field(default_factory=utcnow)
