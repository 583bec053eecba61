#!/usr/bin/env bash
# Byte-identity of the product's outputs: `impact eval` on examples/cases.csv for every law, CPU
# backend, precision and integrator, and the tables of every shipped study, against the hashes in
# tests/golden/SHA256SUMS (scripts/golden.sh). The same hashes on every x86-64 machine, Intel or AMD
# (no output depends on libm or x87: include/impact/rmath.hpp); skipped (77) on another architecture.
set -u
bash "$2/scripts/golden.sh" check "$1"
