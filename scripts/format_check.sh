#!/usr/bin/env bash
# The C++ and CUDA layout: every tracked .hpp, .cpp, .cu, .cuh and .h file of the project (the files
# git ignores are left out) is as clang-format writes it with .clang-format. Fails on any file that
# clang-format would change, naming it and its first differing lines. ctest runs it as lint.format.
#   bash scripts/format_check.sh          # check
#   bash scripts/format_check.sh --fix    # rewrite the files that differ, in place
# The clang-format used: $CLANG_FORMAT when set, else clang-format on PATH; its major version must be
# the one below (Debian 12's), since another release lays out some constructs differently. Exit 77
# (ctest's SKIP_RETURN_CODE for lint.format) with a line "skipped: ..." when there is none.
set -euo pipefail
cd "$(dirname "$0")/.."
want=14
cf=${CLANG_FORMAT:-$(command -v clang-format || true)}
have=$([ -n "$cf" ] && "$cf" --version 2> /dev/null | sed -n 's/.*clang-format version \([0-9]*\)\..*/\1/p' || true)
if [ "$have" != "$want" ]; then
  echo "format_check: skipped: clang-format $want is not installed (found: ${have:-none}; Debian: clang-format)"
  exit 77
fi
mapfile -t files < <(git ls-files -co --exclude-standard -- '*.hpp' '*.cpp' '*.cu' '*.cuh' '*.h')
if [ "${1:-}" = --fix ]; then
  "$cf" -i --style=file "${files[@]}"
  echo "format_check: ${#files[@]} files laid out"
  exit 0
fi
# one clang-format for every file: --dry-run -Werror reports each place it would change as
# "FILE:LINE:COL: error: code should be clang-formatted"
report=$("$cf" --style=file --dry-run -Werror "${files[@]}" 2>&1 || true)
bad=$(grep -o '^[^:]*:[0-9]*:[0-9]*: error: code should be clang-formatted' <<< "$report" | cut -d: -f1 | sort -u || true)
if [ -n "$bad" ]; then
  head -40 <<< "$report"
  echo "format_check: $(wc -l <<< "$bad") of ${#files[@]} files are not as clang-format lays them out (bash scripts/format_check.sh --fix):"
  sed 's/^/  /' <<< "$bad"
  exit 1
fi
echo "format_check: ${#files[@]} files, all as clang-format lays them out"
