#!/usr/bin/env bash
# The README's performance tables, from the BenchmarkRatio benchmarks of ts,
# cbound and por: each strategy's time over the bare loop's (internal/bare)
# for the same number of transitions on the same model, measured in the same
# run; its allocations per transition; its transitions per second; for
# cb-por, the transitions it replays over those it takes. Each cell
# is the median of COUNT runs (default 5). The ratios hold on a loaded
# machine (both sides of each ratio run under the same load); transitions
# per second do not.
#
#   scripts/perf.sh               # the tables, in markdown
#   COUNT=10 scripts/perf.sh      # more runs
#   RAW=out.txt scripts/perf.sh   # also keep go test's output (for benchstat)
#   PKGS=./cbound scripts/perf.sh # one package's strategies (the others' cells: -)
set -euo pipefail
cd "$(dirname "$0")/.."
count=${COUNT:-5}
pkgs=${PKGS:-./ts ./cbound ./por}
cmd="go test -p 1 $pkgs -run '^\$' -bench Ratio -count $count"
raw=$(mktemp)
trap 'rm -f "$raw"' EXIT
# shellcheck disable=SC2086 # pkgs is a list
go test -p 1 $pkgs -run '^$' -bench Ratio -count "$count" >"$raw"
if [ -n "${RAW:-}" ]; then cp "$raw" "$RAW"; fi
cpu=$(sed -n 's/^cpu: //p' "$raw" | head -1)

table() { # metric, title, format, scale, strategies (default: all)
  echo
  echo "$2 (\`$cmd\`, median of $count; $cpu, $(nproc) cores):"
  echo
  awk -v metric="$1" -v fmt="$3" -v scale="${4:-1}" -v strats="${5:-dfs dfs-stateful icb cb-dfs cb-por1 cb-por2 icb-por sleep dpor odpor sdpor}" '
    /^BenchmarkRatio\// {
      split($1, p, "/"); model = p[2]; strat = p[3]; sub(/-[0-9]+$/, "", strat)
      for (i = 3; i < NF; i++) if ($(i+1) == metric) { v[model, strat] = v[model, strat] " " $i; n[model, strat]++ }
    }
    function median(s, c,   a, k, i, j, t) {
      k = split(s, a, " ")
      for (i = 1; i <= k; i++) for (j = i + 1; j <= k; j++) if (a[j] + 0 < a[i] + 0) { t = a[i]; a[i] = a[j]; a[j] = t }
      return k % 2 ? a[(k + 1) / 2] : (a[k / 2] + a[k / 2 + 1]) / 2
    }
    END {
      nm = split("lastzero-4 philosophers-4 wsq-1 bluetooth-2 lastzero-7", models, " ")
      ns = split(strats, cols, " ")
      line = "| model |"; sep = "| --- |"
      for (j = 1; j <= ns; j++) { line = line " " cols[j] " |"; sep = sep " ---: |" }
      print line; print sep
      for (i = 1; i <= nm; i++) {
        line = "| " models[i] " |"
        for (j = 1; j <= ns; j++) {
          c = (models[i] SUBSEP cols[j])
          line = line " " ((c in n) ? sprintf(fmt, median(v[c], n[c]) / scale) : "-") " |"
        }
        print line
      }
    }' "$raw"
}

echo "Strategies on bundled models (icb, cb-dfs, cb-por1 and cb-por2 at bound 2, icb-por at bounds 0 to 2; every search with KeepGoing)."
table x-bare "Time over the bare loop's" "%.1fx"
table allocs/transition "Allocations per transition (the whole search's, setup and confirmed violations included)" "%.3f"
table transitions/s "Millions of transitions per second" "%.2f" 1e6
table transitions/op "Transitions per search" "%.0f"
table replayed/taken "Transitions cb-por replays at prefixes (counted in the transitions above), over those it takes" "%.3f" 1 "cb-por1 cb-por2 icb-por"
table audited/taken "Of those, transitions that audit statuses read off the stack, over those it takes" "%.3f" 1 "cb-por1 cb-por2 icb-por"
