#!/usr/bin/env bash
# The README's table of every strategy that splits on the models given as
# arguments: for odpor, dpor and sleep, the least of 3 wall times (whole
# processes, -keep-going, at most 5,000,000 transitions) with 1 and 2
# workers, their ratio, and whether both printed the same verdict
# (STRATEGIES="dpor sleep" picks the strategies). Run it on
# an otherwise idle machine; WEFT=path runs another build of weft.
set -euo pipefail
cd "$(dirname "$0")/.."
bin=${WEFT:-}
if [ -z "$bin" ]; then
  bin=$(mktemp -d)/weft
  go build -o "$bin" ./cmd/weft
fi
status=0
for m in "$@"; do
  for s in ${STRATEGIES:-odpor dpor sleep}; do
    best1=999; best2=999; o1=""; o2=""
    for r in 1 2 3; do
      for w in 1 2; do
        st=$(date +%s.%N)
        # weft exits 1 on a violation; the verdict is the first line, less its time.
        out=$("$bin" -q -model "$m" -strategy $s -workers $w -max-transitions 5000000 -keep-going 2>&1 | sed -nE '1{s/ \([0-9hmsµn.]+\)$//;p;}' || true)
        en=$(date +%s.%N)
        t=$(echo "$en - $st" | bc)
        if [ $w = 1 ]; then o1=$out; best1=$(echo "if ($t < $best1) $t else $best1" | bc); else o2=$out; best2=$(echo "if ($t < $best2) $t else $best2" | bc); fi
      done
    done
    same=same
    if [ "$o1" != "$o2" ]; then same="DIFF: $o1 | $o2"; status=1; fi
    printf "%-22s %-6s %6.3f %6.3f %5.2fx %s\n" $m $s $best1 $best2 $(echo "$best1/$best2" | bc -l) "$same"
  done
done
exit $status
