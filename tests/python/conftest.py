"""Shared fixtures: the trellis CLI the bindings are compared with (from
$TRELLIS_CLI, which ctest sets), the repository's examples, the shared
boards and a runner that returns the CLI's stdout."""

import os
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="session")
def cli():
    path = os.environ.get("TRELLIS_CLI")
    if not path or not Path(path).is_file():
        pytest.skip("TRELLIS_CLI does not name the trellis executable")

    def run(*args, check=True):
        done = subprocess.run([path, "--quiet", *map(str, args)], capture_output=True, text=True)
        if check and done.returncode != 0:
            raise AssertionError(f"trellis {' '.join(map(str, args))} exited {done.returncode}: {done.stderr}")
        return done

    run.path = path
    return run


@pytest.fixture(scope="session")
def examples():
    return ROOT / "examples"


@pytest.fixture(scope="session")
def shared_boards():
    boards = Path(os.environ.get("TRELLIS_BOARDS_DIR", ROOT.parent / "shared" / "boards"))
    if not boards.is_dir():
        pytest.skip(f"{boards} is not here")
    return boards
