#!/usr/bin/env bash
# Byte-identity of the product's outputs: `impact eval` on examples/cases.csv for every law, CPU
# backend, precision and integrator, and the tables of every shipped study, against the hashes in
# tests/golden/SHA256SUMS written by the 573a81e build (scripts/golden.sh). Skipped (77) on a machine
# class other than the one the hashes were written on (libm bits may differ).
set -u
bash "$2/scripts/golden.sh" check "$1"
