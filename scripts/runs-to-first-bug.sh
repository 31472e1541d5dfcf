#!/usr/bin/env bash
# The README's "runs to the first violation" table: for each model and
# sampler, the mean over seeds 1 to 5 of the runs taken until the first
# violation ("-" where a run fails with an error instead).
set -euo pipefail
cd "$(dirname "$0")/.."
bin=$(mktemp -d)/weft
go build -o "$bin" ./cmd/weft
echo "| model | random | pct (d = 3) | urw |"
echo "| --- | ---: | ---: | ---: |"
for model in wsq-bug2 wsq-bug3 bluetooth-2 twophase-bug-2 philosophers-5 peterson-buggy; do
  row="| $model"
  for strat in random pct urw; do
    total=0 ok=1 depth=()
    if [ "$strat" = pct ]; then depth=(-pct-depth 3); fi
    for seed in 1 2 3 4 5; do
      line=$("$bin" -model "$model" -strategy "$strat" "${depth[@]}" -seed "$seed" -runs 100000 2>&1 | head -1 || true)
      runs=$(sed -n 's/.* \([0-9,]*\) executions\{0,1\}, .*/\1/p' <<<"$line" | tr -d ,)
      if [ -z "$runs" ] || ! grep -q "with .* preemption" <<<"$line"; then ok=0; break; fi
      total=$((total + runs))
    done
    if [ "$ok" = 1 ]; then row="$row | $((total / 5))"; else row="$row | -"; fi
  done
  echo "$row |"
done
