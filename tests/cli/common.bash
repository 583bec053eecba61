# Shared by the CLI test scripts (sourced; not a test itself: ctest runs tests/cli/*.sh).
# Sets IMPACT (the binary, $1) and a temporary directory T removed at exit; check NAME CONDITION
# counts a pass or prints the failure; finish prints the counts and sets the exit status.
IMPACT=$1
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
fail=0
pass=0
check() {  # name, condition
  if eval "$2"; then pass=$((pass + 1)); else echo "FAIL: $1" >&2; fail=$((fail + 1)); fi
}
finish() {
  echo "$pass passed, $fail failed"
  [ $fail -eq 0 ]
}
