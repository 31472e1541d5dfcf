#!/usr/bin/env bash
# Instructions a strategy runs over the bare loop's (internal/bare) for the
# same transitions, counted by callgrind on one BenchmarkRatio case: the
# engine's cost without the timing noise of a shared machine, for comparing
# two versions of the code. The whole program is counted at N iterations and
# at 1, and the difference, less the bare loop's (bare.Walk's inclusive
# count), is the search's; each is divided by N-1. Garbage collection the
# search's allocations cause is counted with the search.
#
#   scripts/instructions.sh ./por sleep wsq-1        # N = 20
#   N=50 scripts/instructions.sh ./cbound icb lastzero-4
#
# It prints: package, strategy, model, the search's instructions per
# iteration, the bare loop's, and their ratio. Needs valgrind.
set -euo pipefail
cd "$(dirname "$0")/.."
pkg=$1 strat=$2 model=$3 n=${N:-20}
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
go test -c -o "$dir/t.test" "$pkg"
count() { # iterations -> "total walk"
  GODEBUG=asyncpreemptoff=1 valgrind --tool=callgrind --callgrind-out-file="$dir/cg.$1" \
    "$dir/t.test" -test.run '^$' -test.bench "Ratio/$model/^$strat\$" -test.benchtime "${1}x" -test.cpu 1 >/dev/null 2>&1
  callgrind_annotate --inclusive=yes "$dir/cg.$1" 2>/dev/null | awk '
    /PROGRAM TOTALS/ && !t { gsub(",", "", $1); t = $1 }
    /bare\.\(\*Walker\[.*\]\)\.Walk/ && !w { gsub(",", "", $1); w = $1 }
    END { printf "%.0f %.0f\n", t, w }'
}
read -r t1 w1 < <(count 1)
read -r tn wn < <(count "$n")
bare=$(( (wn - w1) / (n - 1) ))
search=$(( ((tn - t1) - (wn - w1)) / (n - 1) ))
awk -v p="$pkg" -v s="$strat" -v m="$model" -v a="$search" -v b="$bare" \
  'BEGIN { printf "%s %s %s search=%d bare=%d ratio=%.2f\n", p, s, m, a, b, a / b }'
