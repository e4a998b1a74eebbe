#!/usr/bin/env bash
# The Python package: builds the wheel from core with maturin (python/pyproject.toml, Cargo
# profile `wheel`), installs it into target/py-venv (scripts/setup.sh made it) and runs its
# pytest tests against the installed wheel. Prints the wheel's size.
set -euo pipefail
cd "$(dirname "$0")/.."
VENV=target/py-venv
rm -f target/wheels/shardcalc-*.whl
(cd python && "../$VENV/bin/maturin" build --locked --quiet -o ../target/wheels)
wheel=$(ls target/wheels/shardcalc-*.whl)
echo "python: wheel $(basename "$wheel"): $(stat -c %s "$wheel") bytes"
"$VENV/bin/pip" install --quiet --force-reinstall --no-deps "$wheel"
"$VENV/bin/pytest" -q python/tests
