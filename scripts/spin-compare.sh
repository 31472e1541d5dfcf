#!/usr/bin/env bash
# weft side by side with SPIN (Debian's spin 6.5.2; scripts/install-spin.sh)
# on philosophers-N and lastzero-N, whose Promela models are in
# testdata/promela. For each model it first checks the models are the same
# systems: SPIN's exhaustive search without partial-order reduction must
# store exactly the states weft's dfs-stateful stores and take the same
# transitions, or the script fails. Then it times, min of RUNS runs
# (default 5), SPIN's verifier with its partial-order reduction and without,
# and weft's dfs-stateful, odpor and dpor (all with -keep-going, so every
# search is exhaustive past philosophers' deadlock), and prints a markdown
# table.
#
# Times are whole processes (./pan, and a weft binary built once), wall
# clock; building them (spin -a, gcc -O2, go build) is excluded: the
# "pan build" column is spin -a plus gcc for one verifier, once. Below a few
# hundredths of a second a time is mostly process start-up (pan allocates
# its hash table, Go starts its runtime). The ratios are what to read on a
# shared machine: each line's runs are interleaved, so they share its load.
#
#   scripts/spin-compare.sh
#   PHILOSOPHERS="4 6 8" LASTZERO="6 8" RUNS=3 scripts/spin-compare.sh
#
# SPIN's settings: spin -o1 -o2 -o3 keeps every variable and statement as
# written (no dead-variable resetting, no statement merging), which the
# state counts need; gcc -DSAFETY (no cycle detection), -DNOREDUCE for the
# search without reduction, -DMEMLIM so memory is not the limit; pan -E
# (philosophers' deadlock is an end state; weft counts it and goes on), -n,
# -m10000 (no model here is deeper than 40 steps; the script fails if pan
# says the depth was too small), -wW with 2^W at least twice the states.
# Storage is SPIN's default exhaustive hash table, which compares whole
# state vectors: its "hash conflicts (resolved)" cost time, never states.
set -euo pipefail
cd "$(dirname "$0")/.."
philosophers=${PHILOSOPHERS:-6 7 8}
lastzero=${LASTZERO:-6 7 8 9 10}
runs=${RUNS:-5}

for tool in spin gcc; do
  if ! command -v "$tool" >/dev/null 2>&1; then
    echo "spin-compare: $tool is not installed (scripts/install-spin.sh installs SPIN)" >&2
    exit 1
  fi
done

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
go build -o "$tmp/weft" ./cmd/weft
TIMEFORMAT=%R

# seconds CMD...: the wall-clock seconds of CMD (its output discarded; exit
# status 1, weft's "violation found", is not a failure).
seconds() {
  local t
  t=$( { time "$@" >/dev/null 2>&1 || [ $? -eq 1 ]; } 2>&1)
  echo "$t"
}

# field NAME JSON: a number from weft's -json line.
field() { sed -n "s/.*\"$1\":\([0-9.e+-]*\).*/\1/p" <<<"$2"; }

# panfield PATTERN OUTPUT: the number before PATTERN in pan's output.
panfield() { sed -n "s/^ *\([0-9][0-9]*\) $1.*/\1/p" <<<"$2" | head -1; }

# check NAME OUTPUT: fails unless pan searched the whole state space.
check() {
  if ! grep -q 'Full statespace search' <<<"$2" || ! grep -q 'errors: 0' <<<"$2" ||
    grep -Eq 'max search depth too small|Bit statespace|hash-compact|out of memory|MEMLIM|Search not completed' <<<"$2"; then
    echo "spin-compare: $1: SPIN's search was not exhaustive:" >&2
    echo "$2" >&2
    exit 1
  fi
}

rows=()
for spec in $(for n in $philosophers; do echo "philosophers:$n"; done; for n in $lastzero; do echo "lastzero:$n"; done); do
  model=${spec%:*} n=${spec#*:} name=${spec%:*}-${spec#*:}
  dir="$tmp/$name"
  mkdir -p "$dir"
  build=$( { time (cd "$dir" && spin -o1 -o2 -o3 -DN="$n" -a "$OLDPWD/testdata/promela/$model.pml" >/dev/null &&
    gcc -O2 -DSAFETY -DNOREDUCE -DMEMLIM=16384 -o pan-full pan.c); } 2>&1)
  (cd "$dir" && gcc -O2 -DSAFETY -DMEMLIM=16384 -o pan-por pan.c)

  weft=("$tmp/weft" -model "$name" -json -q -keep-going -strategy)
  for s in odpor dpor dfs-stateful; do
    out=$("${weft[@]}" "$s" || [ $? -eq 1 ])
    if ! grep -q '"complete":true' <<<"$out"; then
      echo "spin-compare: $name: weft's $s did not finish: $out" >&2
      exit 1
    fi
  done
  states=$(field states "$out") transitions=$(field transitions "$out")
  w=10
  while [ $((1 << w)) -lt $((2 * states)) ]; do w=$((w + 1)); done
  pan=(-E -n -m10000 -w"$w")

  full=$(cd "$dir" && ./pan-full "${pan[@]}")
  check "$name" "$full"
  spin_states=$(panfield 'states, stored' "$full")
  spin_transitions=$(($(panfield 'transitions (= stored+matched)' "$full") - 1))
  if [ "$spin_states" != "$states" ] || [ "$spin_transitions" != "$transitions" ]; then
    echo "spin-compare: $name: SPIN stores $spin_states states and takes $spin_transitions transitions," \
      "weft's dfs-stateful $states and $transitions: the Promela model is not weft's" >&2
    exit 1
  fi
  por=$(cd "$dir" && ./pan-por "${pan[@]}")
  check "$name" "$por"
  por_states=$(panfield 'states, stored' "$por")

  best=()
  for ((r = 0; r < runs; r++)); do
    i=0
    for t in \
      "$(cd "$dir" && seconds ./pan-full "${pan[@]}")" \
      "$(cd "$dir" && seconds ./pan-por "${pan[@]}")" \
      "$(seconds "${weft[@]}" dfs-stateful)" \
      "$(seconds "${weft[@]}" odpor)" \
      "$(seconds "${weft[@]}" dpor)"; do
      if [ -z "${best[i]:-}" ] || awk -v a="$t" -v b="${best[i]}" 'BEGIN { exit !(a < b) }'; then best[i]=$t; fi
      i=$((i + 1))
    done
  done
  rows+=("$(awk -v m="$name" -v s="$states" -v ps="$por_states" -v b="$build" \
    -v f="${best[0]}" -v p="${best[1]}" -v d="${best[2]}" -v o="${best[3]}" -v dp="${best[4]}" '
    function ratio(a, b,   r) {
      if (b <= 0) return "-"
      r = a / b
      return sprintf(r >= 1 ? "%.1fx" : r >= 0.1 ? "%.2fx" : "%.2gx", r)
    }
    function commas(n,   s) {
      s = sprintf("%d", n)
      while (s ~ /[0-9][0-9][0-9][0-9]/) sub(/[0-9][0-9][0-9]($|,)/, ",&", s)
      return s
    }
    BEGIN {
      printf "| %s | %s | %s | %.3f | %.3f | %.3f | %.3f | %.3f | %s | %s | %s | %.1f |\n",
        m, commas(s), commas(ps), f, p, d, o, dp, ratio(d, f), ratio(o, f), ratio(o, p), b
    }')")
done

cmd="scripts/spin-compare.sh"
if [ -n "${RUNS:-}" ]; then cmd="RUNS=$runs $cmd"; fi
echo "weft and SPIN $(spin -V | sed -n 's/^Spin Version \([^ ]*\).*/\1/p') on the same systems (\`$cmd\`, min of $runs runs, whole processes, wall clock; $(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -1), $(nproc) cores):"
echo
echo "| model | states | SPIN POR states | SPIN (s) | SPIN POR (s) | dfs-stateful (s) | odpor (s) | dpor (s) | dfs-stateful / SPIN | odpor / SPIN | odpor / SPIN POR | pan build (s) |"
echo "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"
printf '%s\n' "${rows[@]}"
