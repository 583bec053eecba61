#!/usr/bin/env bash
# `impact keys` prints every config key of study, calibrate and reduce with its type, default, unit
# and meaning from the tables the configs are read with; docs/reference.md is its output, so a key
# added to a config without its entry is refused by the config (keys_under), and a table changed
# without the document fails here.
set -u
source "$(dirname "$0")/common.bash"
SRC=$2
"$IMPACT" keys > "$T/keys.md"; rc=$?
check "impact keys exits 0" '[ $rc -eq 0 ]'
check "docs/reference.md is impact keys' output (regenerate: ./build/impact keys > docs/reference.md)" \
  'diff -u "$SRC/docs/reference.md" "$T/keys.md"'
for k in design.second_order params.from_salib smc.particles mcmc.walkers fit.global output.plots run.chunk \
  'plots\[\].kind' params.eta0 params.V0x; do
  check "it documents $k" 'grep -q "| \`$k\`" "$T/keys.md"'
done
check "every key's row has its cells (a key and its meaning at least)" \
  '! grep "^| \`" "$T/keys.md" | awk "{ n = gsub(/[|]/, \"|\"); if (n < 3) print }" | grep -q .'
# a key the table does not list is refused, naming the keys it knows
printf '[study]\nscenario = "ball"\n[design]\nkind = "mc"\nsecond_ordr = true\n' > "$T/s.toml"
"$IMPACT" study "$T/s.toml" --dry-run > /dev/null 2> "$T/err"; rc=$?
check "an unknown key is refused with the documented ones" \
  '[ $rc -ne 0 ] && grep -q "design.second_ordr: unknown key (known in design: file, kind, n, second_order, seed, skip_first)" "$T/err"'
finish
