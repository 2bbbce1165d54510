"""The attack corpus (tests/server/sandbox/attacks) against the docker sandbox backend: the
same tests as tests/server/sandbox/test_attacks.py, run by a local server whose workers start
one container per submission (CJUDGE_SANDBOX=docker)."""

from __future__ import annotations

import importlib.util
from collections.abc import Iterator
from pathlib import Path

import pytest

from server.localserver import JudgeServer, start_server

CORPUS = Path(__file__).parents[1] / "server" / "sandbox" / "test_attacks.py"
_spec = importlib.util.spec_from_file_location("attack_corpus", CORPUS)
corpus = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(corpus)

# the corpus's fixture and tests, collected here with this module's ``judge``
verdicts = corpus.verdicts
test_corpus_is_large_enough = corpus.test_corpus_is_large_enough
test_nothing_is_left_running = corpus.test_nothing_is_left_running
test_server_still_judges_after_the_attacks = corpus.test_server_still_judges_after_the_attacks


@pytest.mark.parametrize("attack", corpus.ATTACKS, ids=[p.stem for p in corpus.ATTACKS])
def test_attack_gets_a_clean_verdict(attack: Path, verdicts: dict[str, dict],
                                     judge: JudgeServer) -> None:
    corpus.test_attack_gets_a_clean_verdict(attack, verdicts, judge)


@pytest.fixture(scope="module")
def judge(judge_images: None, tmp_path_factory: pytest.TempPathFactory) -> Iterator[JudgeServer]:
    """A local server with two embedded workers on the docker sandbox."""
    server = start_server(tmp_path_factory.mktemp("docker-judge"), workers=2, sandbox="docker")
    yield server
    server.stop()
