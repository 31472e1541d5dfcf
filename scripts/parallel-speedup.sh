#!/usr/bin/env bash
# The README's parallel-search table: for each model and strategy, the wall
# time of the search with 1, 2, 4 and 8 workers (the median of 3 runs, in
# seconds) and the speedup over one worker; every run must print the same
# verdict and figures. Cores: nproc; run it on an otherwise idle machine.
# The last column is what the machine itself gives two searches: two
# one-worker searches started together, against one alone (2 x alone / the
# pair's wall time, median of 3). On a machine whose cores are shared with
# other tenants it is well under 2, and no worker count can beat it.
set -euo pipefail
cd "$(dirname "$0")/.."
bin=$(mktemp -d)/weft
go build -o "$bin" ./cmd/weft
median() { sort -n | sed -n 2p; }
echo "cores: $(nproc)"
echo
echo "| model | strategy | 1 worker | 2 workers | 4 workers | 8 workers | two searches at once |"
echo "| --- | --- | ---: | ---: | ---: | ---: | ---: |"
for case in "lastzero-12 odpor" "indexer-16 odpor" "indexer-16 dpor" "indexer-17 odpor" "lastzero-16 odpor" "lastzero-9 sleep" "lastzero-8 dfs-stateful"; do
  read -r model strat <<<"$case"
  row="| $model | $strat" base="" want=""
  for w in 1 2 4 8; do
    times=()
    for _ in 1 2 3; do
      start=$(date +%s.%N)
      out=$("$bin" -model "$model" -strategy "$strat" -workers "$w" -q | sed -nE '1s/ \([0-9hmsµn.]+\)$//p')
      end=$(date +%s.%N)
      times+=("$(echo "$end - $start" | bc)")
      if [ -z "$want" ]; then want=$out; elif [ "$out" != "$want" ]; then
        echo "$model $strat: $w workers printed \"$out\", 1 worker \"$want\"" >&2; exit 1
      fi
    done
    t=$(printf '%s\n' "${times[@]}" | median)
    if [ -z "$base" ]; then base=$t; row="$row | $(printf '%.2f s' "$t")"; else
      row="$row | $(printf '%.2f s (%.2fx)' "$t" "$(echo "$base / $t" | bc -l)")"
    fi
  done
  pair=()
  for _ in 1 2 3; do
    start=$(date +%s.%N)
    "$bin" -model "$model" -strategy "$strat" -workers 1 -q >/dev/null &
    "$bin" -model "$model" -strategy "$strat" -workers 1 -q >/dev/null
    wait
    end=$(date +%s.%N)
    pair+=("$(echo "$end - $start" | bc)")
  done
  t=$(printf '%s\n' "${pair[@]}" | median)
  echo "$row | $(printf '%.2fx' "$(echo "2 * $base / $t" | bc -l)") |"
done
