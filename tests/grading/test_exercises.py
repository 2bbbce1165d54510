"""The exercise loader: valid folders load; a malformed one is named precisely."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from cjudge.exercise.exercises import (
    TRACKS,
    ExerciseError,
    catalog_order,
    default_root,
    load_exercise,
    load_exercises,
)
from cjudge.grading.grade import plan_cases


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    target = tmp_path / "ring-allreduce"
    shutil.copytree(default_root() / "ring-allreduce", target,
                    ignore=shutil.ignore_patterns("__pycache__"))
    return target


def test_repo_exercises_load_with_their_wrong_solutions():
    exercises = load_exercises(default_root())
    assert {"ring-allreduce", "alltoall-transpose"} <= set(exercises)
    for ex in exercises.values():
        assert len(ex.wrong) >= 4
        assert sum(c.sample for c in ex.cases) == 1
        assert ex.statement("en").strip() and ex.statement("zh").strip()
        if not ex.allowed:  # no communication (alpha-beta): one rank answers questions
            continue
        sizes = {c.world_size for c in ex.cases}
        # several world sizes up to 8, odd ones unless the algorithm needs powers of two
        assert len(sizes) >= 3 and max(sizes) >= 8, (ex.id, sizes)
        assert any(n % 2 for n in sizes if n > 1) or all(n & (n - 1) == 0 for n in sizes) \
            or ex.id == "hierarchical-allreduce", (ex.id, sizes)  # nodes × ranks: 4, 6, 8
        # both float dtypes, but where the exercise is defined on one (int8 codes of float32)
        dtypes = {"float32"} if ex.id == "compressed-allreduce" else {"float32", "float64"}
        assert dtypes <= {c.params["dtype"] for c in ex.cases}, ex.id


def test_every_exercise_has_a_place_in_the_catalog():
    exercises = load_exercises(default_root())
    listed = catalog_order(exercises)
    assert all(ex.track in TRACKS and ex.order for ex in listed)
    places = [(list(TRACKS).index(ex.track), ex.order) for ex in listed]
    assert places == sorted(places) and len(set(places)) == len(places)
    assert listed[0].track == "primitives"
    for ex in listed:  # prerequisites come earlier in the catalog
        assert all(listed.index(exercises[p]) < listed.index(ex) for p in ex.prerequisites)


def _catalog_root(tmp_path: Path, *ids: str) -> Path:
    for exercise_id in ids:
        shutil.copytree(default_root() / exercise_id, tmp_path / exercise_id,
                        ignore=shutil.ignore_patterns("__pycache__"))
    return tmp_path


def test_unknown_prerequisite_and_shared_place_are_named(tmp_path):
    root = _catalog_root(tmp_path, "tree-broadcast", "tree-reduce")
    assert list(load_exercises(root)) == ["tree-broadcast", "tree-reduce"]
    _edit(root / "tree-reduce", '["tree-broadcast"]', '["tree-gather"]')
    with pytest.raises(ExerciseError, match=r"tree-reduce/exercise.toml: field `prerequisites` "
                       r"names unknown exercises \['tree-gather'\]"):
        load_exercises(root, strict=True)
    # a course that installs a part of the set: what is not here leaves the catalog
    assert load_exercises(root)["tree-reduce"].prerequisites == ()
    _edit(root / "tree-reduce", '["tree-gather"]', "[]\norder = 1")
    _edit(root / "tree-reduce", "order = 2\n", "")
    with pytest.raises(ExerciseError, match=r"tree-reduce/exercise.toml: field `order` is 1, but "
                       r"exercise 'tree-broadcast' has that place in track 'latency-optimal'"):
        load_exercises(root, strict=True)
    assert list(load_exercises(root)) == ["tree-broadcast", "tree-reduce"]  # served, by id


def _edit(folder: Path, old: str, new: str) -> None:
    path = folder / "exercise.toml"
    text = path.read_text()
    assert old in text
    path.write_text(text.replace(old, new, 1))


@pytest.mark.parametrize("old, new, message", [
    ('id = "ring-allreduce"', 'id = "Ring_AllReduce"', "field `id` is 'Ring_AllReduce'"),
    ('output = "inplace"', 'output = "both"', 'field `output` is \'both\'; expected "inplace"'),
    ('"batch_isend_irecv"]', '"telepathy"]', "unknown primitives ['telepathy']"),
    ("world_size = 4", "world_size = 0", "[[cases]] #1: field `world_size` is 0"),
    ('dtype = "float32"', 'dtype = "float16"', "field `dtype` is 'float16'"),
    ("sample = true", "sample = false", "no case has `sample = true`"),
    ("time_limit_s = 5.0", 'time_limit_s = "ten"', "field `time_limit_s` is 'ten'; expected seconds"),
    ('function = "ring_all_reduce"', "", "missing field `function`"),
    ("[[cases]]", "[[cases]\n", "not valid TOML"),
    ('track = "bandwidth-optimal"', 'track = "fast"', "field `track` is 'fast'; expected one of "
     "primitives, bandwidth-optimal"),
    ("order = 3", "order = 0", "field `order` is 0; expected a positive integer"),
    ('track = "bandwidth-optimal"', "", "field `order` is 3; expected a positive integer, the "
     "exercise's place within its `track`"),
    ('prerequisites = ["reduce-scatter", "all-gather"]', 'prerequisites = "all-gather"',
     "field `prerequisites` is 'all-gather'; expected a list"),
    ('prerequisites = ["reduce-scatter", "all-gather"]', 'prerequisites = ["ring-allreduce"]',
     "field `prerequisites` is ['ring-allreduce']"),
])
def test_malformed_exercise_toml_is_named_precisely(folder, old, new, message):
    _edit(folder, old, new)
    with pytest.raises(ExerciseError) as err:
        load_exercise(folder)
    assert message in str(err.value)
    assert "exercise.toml" in str(err.value)


def test_missing_file_and_undeclared_wrong_verdict_are_named(folder):
    (folder / "statement.zh.md").unlink()
    with pytest.raises(ExerciseError, match=r"statement\.zh\.md: missing file"):
        load_exercise(folder)
    (folder / "statement.zh.md").write_text("x")
    (folder / "wrong" / "mystery.py").write_text("def ring_all_reduce(t):\n    pass\n")
    with pytest.raises(ExerciseError, match=r"mystery\.py: the first lines must declare"):
        load_exercise(folder)
    (folder / "wrong" / "mystery.py").write_text("# expect: sorta_wrong\n")
    with pytest.raises(ExerciseError, match="unknown verdict 'sorta_wrong'"):
        load_exercise(folder)


def test_grader_must_define_its_functions(folder):
    (folder / "grader.py").write_text("def expected(): pass\n")
    with pytest.raises(ExerciseError, match="must define a function `make_inputs`"):
        load_exercise(folder)


def test_inputs_come_from_the_seed(folder):
    ex = load_exercise(folder)
    same = plan_cases(ex, seed=1), plan_cases(ex, seed=1)
    other = plan_cases(ex, seed=2)
    assert same[0] == same[1]
    assert same[0][1]["inputs"] != other[1]["inputs"]  # a hidden case: drawn from the seed
    assert same[0][0]["inputs"] == other[0]["inputs"]  # the sample: the statement's example
    assert [c["name"] for c in same[0]] == [c["name"] for c in other]
    assert [c["name"] for c in plan_cases(ex, only_samples=True)] == ["sample-4-ranks"]


def test_content_hash_changes_with_any_file(folder):
    before = load_exercise(folder).content_hash
    (folder / "statement.md").write_text("changed")
    assert load_exercise(folder).content_hash != before


def test_a_published_copy_loads_without_the_private_files(folder):
    full = load_exercise(folder)
    shutil.rmtree(folder / "wrong")
    (folder / "solution.py").unlink()
    with pytest.raises(ExerciseError, match=r"solution\.py: missing file"):
        load_exercise(folder)
    published = load_exercise(folder, published=True)
    assert published.wrong == () and published.content_hash == full.content_hash
    assert published.cases == full.cases


def test_difficulty_is_one_of_three_and_every_exercise_says_it(folder):
    assert {ex.difficulty for ex in load_exercises(default_root()).values()} == {
        "intro", "core", "advanced"}
    toml = folder / "exercise.toml"
    toml.write_text(toml.read_text().replace('difficulty = "core"', 'difficulty = "hard"'))
    with pytest.raises(ExerciseError, match="field `difficulty` is 'hard'; expected one of "
                                            "intro, core, advanced"):
        load_exercise(folder)


def test_every_exercise_names_its_chapter_sections(folder):
    assert all(ex.chapter for ex in load_exercises(default_root()).values())
    toml = folder / "exercise.toml"
    toml.write_text(toml.read_text().replace('chapter = ["ring-volume", "exercises"]',
                                             'chapter = ["ring"]'))
    with pytest.raises(ExerciseError, match="field `chapter` is \\['ring'\\]; expected a list"):
        load_exercise(folder)
