# Source on the device machine: installs carried wheels (.whl) into /tmp/site and puts the repo on PYTHONPATH.
# The wheels come from bench/fetch_device_wheels.sh (run it on the CPU machine first).
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target $PWD/.site .whl/*.whl >/dev/null 2>&1 || echo "wheel install failed"
export PYTHONPATH=$PWD/.site:$PWD PYTHONUNBUFFERED=1
