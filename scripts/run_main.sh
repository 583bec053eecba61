#!/usr/bin/env bash
# The main job: installs what is missing (Debian packages), builds, and runs the shipped default
# study (examples/studies/pencil-mc.toml: a Monte Carlo of Jia's pencil striking a desk, 10^5
# samples, laws jia and stronge on the same samples) on the GPU if one is usable, else on every
# CPU core. Prints the summary table and where the tables and plots are (out/pencil-mc/).
# Extra arguments go to `impact study` (e.g. --set design.n=1000000, --backend serial).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/build.sh > /dev/null
./build/impact study examples/studies/pencil-mc.toml "$@"
