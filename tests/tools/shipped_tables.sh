#!/usr/bin/env bash
# Every shipped table is what `table build` makes from the committed results, the build date
# aside: the CPU tables from their campaigns' quick-results.csv.xz, with odd-results.csv.xz and
# odd2-results.csv.xz merged in where a campaign has them (as the READMEs of bench/results/cpu-*
# build them), and,
# with `cuda`, both CUDA tables as scripts/h200-tables builds them. A table edited by hand, or
# results committed without the table they make (or the reverse), fails here.
#
#   tests/tools/shipped_tables.sh GEMMROUTE ROOT SCRATCH [cuda]
set -euo pipefail
cli=$1 root=$2 scratch=$3 cuda=${4:-}
rm -rf "$scratch" && mkdir -p "$scratch"
same() {  # same BUILT SHIPPED
  if ! cmp -s <(grep -v '^date ' "$1") <(grep -v '^date ' "$2"); then
    echo "FAIL: $2 is not what its committed results build; the difference:" >&2
    diff <(grep -v '^date ' "$1") <(grep -v '^date ' "$2") | head -n 20 >&2
    exit 1
  fi
}
unxz() {  # unxz SRC.xz DST
  python3 -c 'import lzma, shutil, sys; shutil.copyfileobj(lzma.open(sys.argv[1]), open(sys.argv[2], "wb"))' \
    "$1" "$2"
}
checked=0
for pair in cpu-amd-epyc-2c:amd-epyc-2c cpu-amd-zen4-2c:amd-epyc-2c-zen4 \
  cpu-amd-zen5-2c:amd-epyc-2c-zen5 cpu-intel-xeon-2c:intel-r-xeon-r-processor-2c; do
  dir=${pair%%:*} table=${pair##*:}
  mkdir -p "$scratch/$dir"
  unxz "$root/bench/results/$dir/quick-results.csv.xz" "$scratch/$dir/quick-results.csv"
  (cd "$scratch/$dir" && "$cli" table build quick-results.csv --margin 0.03 --out "$table.table" >/dev/null)
  # Rows off the powers of two (tuning/odd.spec, then tuning/odd2.spec), where a campaign has
  # them: merged in, in that order.
  for odd in odd odd2; do
    [ -f "$root/bench/results/$dir/$odd-results.csv.xz" ] || continue
    unxz "$root/bench/results/$dir/$odd-results.csv.xz" "$scratch/$dir/$odd-results.csv"
    (cd "$scratch/$dir" && "$cli" table build "$odd-results.csv" --margin 0.03 \
      --merge "$table.table" --out "$table.merged.table" >/dev/null &&
      mv "$table.merged.table" "$table.table")
  done
  same "$scratch/$dir/$table.table" "$root/tables/cpu/$table.table"
  checked=$((checked + 1))
done
(cd "$scratch/cpu-amd-epyc-2c" &&
  "$cli" table build quick-results.csv --margin 0.03 --generic --out generic.table >/dev/null)
same "$scratch/cpu-amd-epyc-2c/generic.table" "$root/tables/cpu/generic.table"
checked=$((checked + 1))
if [ "$cuda" = cuda ]; then
  "$root/scripts/h200-tables" "$cli" "$scratch/cuda" >/dev/null
  for t in nvidia-h200-132sm generic; do
    same "$scratch/cuda/$t.table" "$root/tables/cuda/$t.table"
    checked=$((checked + 1))
  done
fi
echo "ok: $checked shipped tables are what their committed results build"
