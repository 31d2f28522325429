#!/usr/bin/env bash
# Run here (not on the device): download the Python 3.12 wheels the GPU machine lacks into .whl/ (git-ignored via
# .git/info/exclude), then pass carry=[".whl"] to the device run and `source bench/device_setup.sh` there.
set -euo pipefail
cd "$(dirname "$0")/.."
mkdir -p .git/info; grep -qx '/.whl/' .git/info/exclude 2>/dev/null || echo '/.whl/' >> .git/info/exclude
python3 -m pip download -q --no-deps --only-binary=:all: --python-version 3.12 --implementation cp \
  --platform manylinux_2_28_x86_64 --platform manylinux_2_17_x86_64 --platform manylinux2014_x86_64 -d .whl \
  fastcore 'typer<0.29' pytest pluggy iniconfig shellingham rich markdown-it-py mdurl annotated-doc pygments \
  pydantic pydantic_core typing-inspection annotated-types plotly narwhals \
  fastapi fastapi-offline starlette uvicorn h11 anyio sniffio httpx httpcore idna certifi click opentelemetry-api importlib-metadata zipp typing-extensions \
  py-spy datasets dill xxhash multiprocess fsspec aiohttp aiosignal frozenlist multidict yarl propcache aiohappyeyeballs attrs
ls .whl
