"""Display names cannot pass for someone else's (issue 41): NFKC, one script, UTS #39 skeletons,
staff names kept; the profile route answers each refusal with its code in both languages."""

from __future__ import annotations

import unicodedata
from pathlib import Path

from fastapi.testclient import TestClient
from hypothesis import given
from hypothesis import strategies as st

from server import names
from server.accounts import reserved
from server.api.app import create_app
from server.settings import Settings

#: Cyrillic letters drawn like Latin ones (UTS #39 maps each to the Latin letter)
CYRILLIC = {"a": "а", "c": "с", "e": "е", "o": "о", "p": "р", "x": "х", "y": "у"}
LATIN_NAMES = st.text("abcdefghijklmnopqrstuvwxyz", min_size=2, max_size=32)


def full_width(text: str) -> str:
    """``text`` in full-width letters (NFKC makes them plain again)."""
    return "".join(chr(ord(c) + 0xFEE0) for c in text)


@given(LATIN_NAMES)
def test_full_width_letters_are_the_plain_name(name: str) -> None:
    wide = full_width(name)
    assert wide != name and names.normalise(wide) == name
    assert names.looks_like(names.normalise(wide), [name]) == name


@given(st.text("acepxyo", min_size=2, max_size=32))
def test_a_name_in_cyrillic_look_alikes_is_the_latin_name(name: str) -> None:
    cyrillic = "".join(CYRILLIC[c] for c in name)
    assert names.form_problem(cyrillic) is None  # one script: a fine name of its own
    assert names.looks_like(cyrillic, ["someone", name]) == name
    assert names.key(cyrillic) == names.key(name) == names.key(name.upper())


@given(LATIN_NAMES, st.data())
def test_one_look_alike_letter_of_another_script_is_refused(name: str, data: st.DataObject) -> None:
    spots = [i for i, c in enumerate(name) if c in CYRILLIC]
    if not spots:
        spots = [0]
        name = "a" + name[1:]
    i = data.draw(st.sampled_from(spots))
    mixed = name[:i] + CYRILLIC[name[i]] + name[i + 1:]
    assert names.form_problem(name) is None
    assert names.form_problem(mixed) is names.MIXED


def test_names_in_one_script_of_any_kind_pass() -> None:
    for name in ("张三", "山田たろう", "김민준", "Ἀλέξανδρος", "José Núñez", "Иван", "ann_lee.2"):
        assert names.form_problem(names.normalise(name)) is None, name
    assert names.form_problem("Ivan Иван") is names.MIXED
    assert names.form_problem("a1٣") is names.MIXED  # digits of two kinds
    assert names.form_problem("a\u200bb") is names.BAD_FORM
    assert names.form_problem("x") is names.BAD_FORM


def test_staff_titles_are_kept_however_they_are_written() -> None:
    for name in ("T.A.", "ta", "Аdmin", "ａｄｍｉｎ", "j-u-d-g-e", "TEACHER", "Moder ator", "adrnin"):
        assert names.staff_like(names.normalise(name)), name
    assert names.staff_like("Prof Xu", ["prof_xu"])
    for name in ("Tatiana", "Admina", "judges", "Prof Xu"):
        assert not names.staff_like(name), name


def test_a_username_like_a_reserved_one_is_reserved(tmp_path: Path) -> None:
    settings = Settings(data_dir=tmp_path, admin_username="boss")
    assert reserved(settings, "ADMIN") and reserved(settings, "adrnin") and reserved(settings, "B0SS")
    assert not reserved(settings, "alice")


def test_the_profile_route_refuses_look_alikes_in_both_languages(tmp_path: Path) -> None:
    settings = Settings(data_dir=tmp_path / "data", workers=0, sandbox="none",
                        allowed_hosts="testserver", admin_username="prof_xu",
                        admin_password="a long admin passphrase 42")
    app = create_app(settings, embedded_workers=False)
    with TestClient(app) as ann, TestClient(app) as bob:
        for client, name in ((ann, "ann"), (bob, "bob")):
            assert client.post("/api/auth/register", json={
                "username": name, "password": "correct horse battery"}).status_code == 201
        taken = ann.put("/api/me/profile", json={"display_name": "ape  Team"})
        assert taken.json() == {"display_name": "ape Team", "anonymous": False}
        answers = {name: bob.put("/api/me/profile", json={"display_name": name})
                   for name in ("аре Team", "ＡＰＥ team", "Аpe Team", "T.A.", "Prof Xu",
                                "anonymous", "ape Teams")}
        assert bob.get("/api/me/profile").json()["display_name"] == "ape Teams"
        again = ann.put("/api/me/profile", json={"display_name": "Аpe Team"})
    codes = {name: (a.status_code, a.json().get("code")) for name, a in answers.items()}
    assert codes == {"аре Team": (422, "display_name_mixed_scripts"),  # Cyrillic, then Latin
                     "ＡＰＥ team": (409, "display_name_taken"),
                     "Аpe Team": (422, "display_name_mixed_scripts"),
                     "T.A.": (409, "display_name_reserved"),
                     "Prof Xu": (409, "display_name_reserved"),  # the admin's username
                     "anonymous": (422, "bad_display_name"),
                     "ape Teams": (200, None)}
    for answer in answers.values():
        if answer.status_code != 200:
            body = answer.json()
            assert body["detail"] and any("\u4e00" <= c <= "\u9fff" for c in body["message_zh"])
    assert again.status_code == 422  # mixed scripts, even for the name's own owner


def test_a_whole_name_in_look_alike_letters_is_taken(tmp_path: Path) -> None:
    settings = Settings(data_dir=tmp_path / "data", workers=0, sandbox="none",
                        allowed_hosts="testserver")
    app = create_app(settings, embedded_workers=False)
    with TestClient(app) as ann, TestClient(app) as bob:
        for client, name in ((ann, "ann"), (bob, "bob")):
            assert client.post("/api/auth/register", json={
                "username": name, "password": "correct horse battery"}).status_code == 201
        assert ann.put("/api/me/profile", json={"display_name": "copy"}).status_code == 200
        cyrillic = bob.put("/api/me/profile", json={"display_name": "сору"})
        own = ann.put("/api/me/profile", json={"display_name": "COPY"})
    assert unicodedata.name("с") == "CYRILLIC SMALL LETTER ES"
    assert cyrillic.status_code == 409 and cyrillic.json()["code"] == "display_name_taken"
    assert own.status_code == 200  # the name's owner may change its case
