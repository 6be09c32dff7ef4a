"""What the tests share: the sgtab and sgq binaries of this source tree (the CLI the package must
agree with), a scratch directory, and the repository's root."""

import os
import pathlib
import subprocess

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]


def binary(name):
    """The binary `name`: from $SGTAB_BIN (a directory), else this tree's target/release."""
    where = pathlib.Path(os.environ.get("SGTAB_BIN", ROOT / "target" / "release"))
    path = where / name
    if not path.is_file():
        pytest.fail(f"{path} is missing: build it with `cargo build --release` (or set SGTAB_BIN to its directory)")
    return path


class Cli:
    """Runs the command-line tools; each run must succeed unless `ok=False`."""

    def run(self, name, *args, input=None, ok=True):
        done = subprocess.run([str(binary(name)), *map(str, args)], input=input, capture_output=True, text=True, cwd=ROOT)
        if ok and done.returncode != 0:
            raise AssertionError(f"{name} {' '.join(map(str, args))} failed: {done.stderr}")
        return done

    def sgtab(self, *args, **kw):
        return self.run("sgtab", *args, **kw)

    def sgq(self, *args, **kw):
        return self.run("sgq", *args, **kw)


@pytest.fixture
def cli():
    return Cli()


@pytest.fixture
def root():
    return ROOT
