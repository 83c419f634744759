#!/usr/bin/env bash
# tune and table build with the optional libraries as found, then hidden: the fingerprint
# names each library or "none", a hidden library's candidates are recorded as not runnable
# (library not found) and never ranked, a table measured with the libraries reports the
# mismatch where they are hidden, and a pin to a hidden library says why it cannot run.
set -euo pipefail
cli=$1 spec=$2 scratch=$3
rm -rf "$scratch" && mkdir -p "$scratch"
fail() { echo "FAIL: $*" >&2; exit 1; }

"$cli" tune --device cpu --spec "$spec" --out "$scratch/found.csv" >/dev/null
"$cli" table build "$scratch/found.csv" --out "$scratch/found.table" >/dev/null
grep -q '^# fingerprint.libxsmm ' "$scratch/found.csv" || fail "no fingerprint.libxsmm"
grep -q '^# fingerprint.blis ' "$scratch/found.csv" || fail "no fingerprint.blis"

GEMMROUTE_LIBXSMM=none GEMMROUTE_BLIS=none \
  "$cli" tune --device cpu --spec "$spec" --out "$scratch/hidden.csv" >/dev/null
grep -q '^# fingerprint.libxsmm none$' "$scratch/hidden.csv" || fail "hidden libxsmm not 'none'"
grep -q '^# fingerprint.blis none$' "$scratch/hidden.csv" || fail "hidden blis not 'none'"
for c in libxsmm blis 'blis:par=item'; do
  grep -q "^f32,N,N,packed,4,4,4,16,$c,.*not-runnable.*library not found" "$scratch/hidden.csv" ||
    fail "$c not recorded as not runnable (library not found)"
done
"$cli" table build "$scratch/hidden.csv" --out "$scratch/hidden.table" >/dev/null
if grep -Eq ' (libxsmm|blis)[@:]' "$scratch/hidden.table"; then fail "hidden libraries ranked"; fi

# The table measured with the libraries, on the machine without them.
if grep -q '^fingerprint.libxsmm none$' "$scratch/found.table"; then
  echo "ok: LIBXSMM not installed here; the hidden run alone was checked"
  exit 0
fi
# (Which entries the walk then skips is tested in tests/cpu/libraries_test.cpp.)
out=$(GEMMROUTE_LIBXSMM=none GEMMROUTE_BLIS=none "$cli" explain --device cpu --dtype f32 \
  --m 4 --n 4 --k 4 --batch 16 --table "$scratch/found.table")
echo "$out" | grep -q "note: fingerprint.libxsmm is '.*' in the table, 'none' on this device" ||
  fail "no note on the libxsmm mismatch: $out"
if GEMMROUTE_LIBXSMM=none "$cli" explain --device cpu --dtype f32 --m 4 --n 4 --k 4 \
  --batch 16 --pin libxsmm >"$scratch/pin.txt" 2>&1; then
  fail "a pin to a hidden LIBXSMM ran"
fi
grep -q "library not found" "$scratch/pin.txt" || fail "pin refusal does not say why: $(cat "$scratch/pin.txt")"
echo "ok: hidden libraries are not found, recorded and noted"
