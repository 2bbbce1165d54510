"""docs/settings.md is generated from ``server.settings.Settings``: it must say what the class
says, every setting with its variable, type and default."""

from __future__ import annotations

from server.settings import Settings
from server.settings_doc import PAGE, render


def test_the_settings_reference_is_current() -> None:
    assert PAGE.read_text(encoding="utf-8") == render(), (
        "docs/settings.md is stale: run `python -m server.settings_doc`")


def test_every_setting_is_in_it_once() -> None:
    page = render()
    for name in Settings.model_fields:
        assert page.count(f"| `CJUDGE_{name.upper()}`") == 1, name
    assert "| `CJUDGE_SANDBOX` | one of `bwrap`, `docker`, `none` | `bwrap` |" in page
    assert "| `CJUDGE_EXERCISES_DIR` | path | `exercises` in the repository |" in page
