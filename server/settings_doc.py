"""The settings reference, ``docs/settings.md``, generated from ``server.settings.Settings``:
each variable with its type, default and meaning (the comments beside and above its field, the
section comments as headings). ``python -m server.settings_doc`` writes it;
``tests/server/test_settings_doc.py`` fails while it is stale."""

from __future__ import annotations

import ast
import inspect
import io
import sys
import tokenize
import types
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal, Union, get_args, get_origin

from pydantic import AliasChoices, SecretStr
from pydantic.fields import FieldInfo

from . import settings as settings_module
from .settings import REPO_ROOT, Settings

PAGE = REPO_ROOT / "docs" / "settings.md"
FIRST_SECTION = "storage and secrets"
HEAD = """# Settings reference

<!-- generated from `server/settings.py` by `python -m server.settings_doc`: edit the comments
there, not this page (tests/server/test_settings_doc.py fails while it is stale) -->

The server and its workers read these from the environment (or a `.env` file in Docker Compose,
see [deploy.md](deploy.md)). A list is written comma-separated (`a,b`) or as a JSON list; a
choice outside its list stops the start with the choices named; a secret never shows in a log.
"""
KINDS = {bool: "true/false", int: "integer", float: "number", str: "text", Path: "path",
         SecretStr: "secret"}


@dataclass
class Section:
    """A heading of ``Settings`` and the rows under it."""

    title: str
    rows: list[str] = field(default_factory=list)


def _comments(source: str) -> dict[int, str]:
    """Each source line's comment, without its ``#``."""
    tokens = tokenize.generate_tokens(io.StringIO(source).readline)
    return {t.start[0]: t.string.lstrip("#").strip() for t in tokens if t.type == tokenize.COMMENT}


def _kind(annotation: Any) -> str:
    """How a field's type reads in the table."""
    args = [a for a in get_args(annotation) if a is not type(None)]
    if get_origin(annotation) in (Union, types.UnionType):
        return _kind(args[0])
    if get_origin(annotation) is Literal:
        return "one of " + ", ".join(f"`{a}`" for a in get_args(annotation))
    if get_origin(annotation) is list:
        return "list of secrets" if args == [SecretStr] else "list"
    return KINDS[annotation]


def _default(info: FieldInfo) -> str:
    """A field's default as it reads in the table (paths in the repository relative to it)."""
    if info.default_factory is not None:
        return "computed"
    value = info.default
    if value is None or value == []:
        return "none"
    if isinstance(value, Path) and value.is_relative_to(REPO_ROOT):
        return f"`{value.relative_to(REPO_ROOT).as_posix()}` in the repository"
    if isinstance(value, list):
        return "`" + ",".join(value) + "`"
    return f"`{str(value).lower() if isinstance(value, bool) else value}`"


def _variables(name: str, info: FieldInfo) -> str:
    alias = info.validation_alias
    names = alias.choices if isinstance(alias, AliasChoices) else [f"CJUDGE_{name.upper()}"]
    return ", ".join(f"`{n}`" for n in names)


def render() -> str:
    """The reference page's text."""
    source = inspect.getsource(settings_module)
    lines, comments = source.splitlines(), _comments(source)
    tree = ast.parse(source)
    cls = next(n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == Settings.__name__)
    sections = [Section(FIRST_SECTION)]
    for node in cls.body:
        if not (isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name)):
            continue
        name = node.target.id
        above = node.lineno - 1  # the comment lines right above the field (1-based line numbers)
        while above > 0 and lines[above - 1].strip().startswith("#"):
            above -= 1
        block = [comments[n] for n in range(above + 1, node.lineno)]
        if block and not lines[above - 1].strip():  # after a blank line: a section's heading
            sections.append(Section(block.pop(0)))
        beside = [comments[n] for n in range(node.lineno, (node.end_lineno or node.lineno) + 1)
                  if n in comments]
        meaning = "; ".join(block + beside).replace("|", "\\|")
        info = Settings.model_fields[name]
        sections[-1].rows.append(f"| {_variables(name, info)} | {_kind(info.annotation)} | "
                                 f"{_default(info)} | {meaning} |")
    body = [f"## {s.title}\n\n| variable | type | default | meaning |\n|---|---|---|---|\n"
            + "\n".join(s.rows) + "\n" for s in sections if s.rows]
    return HEAD + "\n" + "\n".join(body)


if __name__ == "__main__":  # ``--check``: exit 1 if the page is stale, write nothing
    if "--check" in sys.argv[1:]:
        sys.exit(int(PAGE.read_text(encoding="utf-8") != render()))
    PAGE.write_text(render(), encoding="utf-8")
