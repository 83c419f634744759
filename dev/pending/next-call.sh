#!/usr/bin/env bash
# The device queue's next call (dev/pending/README.md, "The device queue"), chosen by the card
# that came, so that a call is never spent on work the card cannot do for us:
#
#   H200: queue item 0 (the whole `gpu` label) and items 1b and 1's campaigns: exact rows at
#         cuda-small.txt's keys from n = 20 on, the transposed rows, the item tiles' and the
#         two-row tiles' lattice keys measured again with every candidate (tune --shapes,
#         tuning/cuda-quick.spec), each resumable and stopped in time (item 2's bench ran on
#         2026-12-06 and runs again once scripts/h200-tables has merged them);
#   other cards (an H100): the `28` call below with patch 44 (the 256 x 128 tile's refill
#         copies in threes): its `cuda.reg` tests, its timing and the sanitizers over its twin
#         (LIMIT=330 unless set: about 5.5 minutes); work that needs no H200 (a same-card
#         campaign would not enter its table). The landed tree's label (43 in) passed on an H100
#         on 2026-12-07 (thirty-ninth), 248 of 248.
#
#   dev/pending/next-call.sh [label | 28 | 28b | 28c | edge128 | 18 | 18b | campaigns]
#                                         (in the device tool's `run`, from the repository root;
#                                         $OUT set; `campaigns`: on an H200, item 1 alone, for a
#                                         second call once the label and the bench have run)
#
# With `label`, any card: queue item 0, the whole `gpu` label on the tree as it is, then memcheck
# and racecheck over the `cuda.reg` tests and CudaExec's (~6 minutes on a fresh machine; last run
# on an H100 with patch 37 as it landed, 2026-12-07 (thirty-fifth): 248 of 248, both sanitizers
# clean; LIMIT=SECONDS ends the sanitizers sooner).
#
# With `28`, any card, AB_PATCHES set (reg.cu patches, ';' between): the patches built beside
# the shipped reg.cu (`:ab=1`), the `cuda.reg` tests of both (with AB_LABEL=1 the whole label), the timing of both tiles, their
# twins and cuBLAS over bench/shapes/cuda-reg-f32.txt in one process (reg-ab.csv) and at
# dev/pending/reg-edge-controls.txt's strided shapes (ld = rows + 1: misaligned columns apart from
# edge tiles), reg-edge-split.txt's (m, n and k off the tile one at a time) and
# reg-few-tiles.txt's (k split over 4-16 tiles, reg-few-tiles.csv), each kernel's duration at
# seven shapes (reg-profile.sh's TIMES), then memcheck and racecheck over the twins (~9.5 minutes).
# With `28b`, any card, AB_PATCHES set: the same build timed over dev/pending/reg-edge-split.txt
# (m, n and k off the tile one at a time), then the kernel times at seven shapes ($OUT/times.csv),
# then ncu's profile of the 256 x 128 tile at N N 2047^3 and 2048^3 ($OUT/regprof-big-2047.tgz,
# -2048.tgz; ~9 minutes; LIMIT=SECONDS fits it into less: the timing first, the kernel times
# to two thirds of it, the profiles in what is left). Both ran on 2026-12-06 (thirtieth) with
# patches 28 and 29, which landed (29 in N N).
# dev/pending/reg-split-edge-shapes.txt and reg-ab128.spec make a shorter call.
#
# With `28c`, any card, AB_PATCHES set: the same build's `cuda.reg` tests, its timing over
# reg-edge-split.txt, then memcheck and racecheck over the twins' tests (~5 minutes; LIMIT=SECONDS
# ends the sanitizers sooner): patches that change the edge tiles' kernels (as 32 and 33 did).
#
# With `edge128`, any card: the `cuda.reg` tests, then ncu's profile (sections, stalls,
# per-instruction counts) of the 128 x 128 tile's N N kernel at 1023 x 1024 x 1024 (m off the
# tile) and 1024 x 1024 x 1023 (k off): both run the split element kernel with the same chunks,
# and the first takes 15% longer for a reason the edge copies (29) did not remove; then, in the
# time left, 1024^3 (the split kernel of 16-byte copies: cuBLAS's time over ours 1.006 there,
# 0.856 with k off) ($OUT/regprof-reg-*.tgz; ~6-9 minutes). Its profiles ran on an H100 on
# 2026-12-07 (thirty-fourth; the reason: the sums' stores, which patch 37 aligned: landed on
# 2026-12-07, thirty-fifth).
#
# With `18`, any card: patch 18 (cuda.stream over items apart) checked and timed against the tree
# without it, in one call: `bench --grouped` at 10^5 and 10^6 items on the tree as it is, then
# 18 and 19 applied and built, the tests of what 18 touches
# (every cuda.stream candidate, the grouped API, the no-GPU checks), `bench --grouped` again
# (and `--sizes`: pointer-array batches of one size, 65,536 items, before and after), and
# memcheck and racecheck over the cuda.stream tests last (quick shapes), so the timing comes back
# even where the sanitizers are cut short (~9 minutes). With `18b`, after it: the tree with 18 and
# 19 built twice, the fused launch's bound for groups of sides up to 40 at 1 GiB (as shipped) and
# at 32 MiB (such groups over it run their own choice, cuda.stream with 18), `bench --grouped`
# in each (grouped CSVs under $OUT/a and $OUT/b; ~6 minutes).
#
# The campaigns' CSVs come back under $OUT; copy them into bench/results/h200/ before the next
# call, which then resumes them. A campaign that completes in a call is confirmed in it
# (`<name>-confirm.csv`, beside it, resumable too); once all four are confirmed, run
# scripts/h200-tables (the README's item 1).
set -u
out="${OUT:?the device tool sets OUT}"
gpu=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)
echo "card: $gpu"
start=$(date +%s)
q=tuning/cuda-quick.spec
r=bench/results/h200
campaigns=(cuda-small-rows cuda-auto-losses cuda-stream-transposed cuda-stream-transposed-b
  cuda-stream-items-rows cuda-stream-two-rows-rows)
# git apply inside a repository above the tree would skip the tree's paths silently.
ceiling="GIT_CEILING_DIRECTORIES=$(dirname "$PWD")"
if [ "${1:-}" = label ]; then
  SANITIZE_FILTER='*cuda_reg*:CudaRegBig.*:CudaRegSplit.*:CudaExec.*' \
    DEADLINE=$((start + ${LIMIT:-560})) STEP_MINUTES=6 timeout $((${LIMIT:-560} + 20)) \
    scripts/gpu-check "$out/g" tests sanitize
  echo "wall $(($(date +%s) - start)) s"
  exit 0
fi
# The shapes whose kernel times (reg-profile.sh's TIMES) tell a split sum's share from the
# tile's, and an edge tile's cost: the `28` and `28b` calls.
reg_times="NN:1023:1023:1023 TN:1023:1023:1023 NN:2047:2047:2047
  NN:1024:1024:1024 NN:1000:1000:1000 NN:512:512:512 NN:256:256:256"  # a newline: a space
# sanitize_twins FILTER: memcheck and racecheck over the A/B build's tests FILTER selects, ended at
# LIMIT seconds into the call (default 560).
sanitize_twins() {
  SANITIZE_FILTER=$1 DEADLINE=$((start + ${LIMIT:-560})) \
    timeout $((start + ${LIMIT:-560} + 20 - $(date +%s))) scripts/gpu-check "$out/san" sanitize
}
if [ "${1:-}" = 28 ]; then  # reg.cu patches A/B: tests, timing, kernel times, sanitizers
  p=dev/pending
  export AB_PATCHES="${AB_PATCHES:?the reg.cu patches to build beside the shipped file}"
  # AB_LABEL=1: the whole `gpu` label in the A/B build in place of the `cuda.reg` tests (the
  # tree's label run and the twins' tests in one call), the timing to LIMIT - 120 s.
  tests='gtest:*cuda_reg*:CudaRegBig*:CudaRegSplit*:CudaWithoutGpu.*' ab_end=250
  [ -n "${AB_LABEL:-}" ] && tests=tests ab_end=$((${LIMIT:-560} - 120))
  DEADLINE=$((start + ab_end)) timeout $((ab_end + 20)) scripts/gpu-check "$out/ab" "$tests" \
    shapes:bench/shapes/cuda-reg-f32.txt:tuning/cuda-reg-ab.spec:reg-ab.csv:3 \
    shapes:$p/reg-edge-controls.txt:tuning/cuda-reg-ab.spec:reg-edge-controls.csv:1 \
    shapes:$p/reg-edge-split.txt:tuning/cuda-reg-ab.spec:reg-edge-split.csv:1 \
    shapes:$p/reg-few-tiles.txt:tuning/cuda-reg-ab.spec:reg-few-tiles.csv:2
  # LIMIT=SECONDS (where device time is short) or AB_LABEL: no kernel times, the sanitizers to
  # the limit.
  if [ -z "${LIMIT:-}" ] && [ -z "${AB_LABEL:-}" ]; then
    TIMES=$reg_times TIMES_SKIP=8 WHICH=none QUEUED=1 \
      timeout $((start + 400 - $(date +%s))) $p/reg-profile.sh
  fi
  sanitize_twins '*cuda_reg*ab_1*:CudaRegBig*:CudaRegSplit*'
  # At most 8 files come back from $OUT: the sanitizers' summary joins the A/B one, their logs
  # go beside the A/B logs, and the kernel times' raw files (regprof.tgz) stay behind: times.csv
  # holds them. That leaves ab/ (4 CSVs, summary.txt, logs.tgz, san-logs.tgz) and times.csv.
  if [ -d "$out/san" ]; then
    [ -f "$out/san/summary.txt" ] && cat "$out/san/summary.txt" >> "$out/ab/summary.txt"
    [ -f "$out/san/logs.tgz" ] && mv "$out/san/logs.tgz" "$out/ab/san-logs.tgz"
    rm -rf "$out/san"
  fi
  rm -f "$out/regprof.tgz"
  echo "wall $(($(date +%s) - start)) s"
  exit 0
fi
# The `28b` and `28c` calls' first step: the A/B build, its `cuda.reg` tests and its timing over
# reg-edge-split.txt.
edge_ab() {
  export AB_PATCHES="${AB_PATCHES:?the reg.cu patches to build beside the shipped file}"
  DEADLINE=$((start + 170)) timeout 190 scripts/gpu-check "$out/ab" 'gtest:*cuda_reg*' \
    shapes:dev/pending/reg-edge-split.txt:tuning/cuda-reg-ab.spec:reg-edge-split.csv:2
}
if [ "${1:-}" = 28b ]; then  # edge shapes, kernel times, profiles (28 times the edge shapes too)
  p=dev/pending
  end=$((start + ${LIMIT:-575}))  # LIMIT: the seconds the call has (where device time is short)
  edge_ab
  TIMES=$reg_times TIMES_SKIP=8 WHICH=none QUEUED=1 \
    timeout $(((end - start) * 2 / 3 + start - $(date +%s))) $p/reg-profile.sh
  for size in 2047 2048; do
    [ $((end - $(date +%s))) -gt 30 ] || break
    SIZE="$size $size $size" WHICH=big-NN TAG=big-$size QUEUED=1 \
      timeout $((end - $(date +%s))) $p/reg-profile.sh
  done
  echo "wall $(($(date +%s) - start)) s"
  exit 0
fi
if [ "${1:-}" = 28c ]; then  # reg.cu patches A/B at the edge shapes: tests, timing, sanitizers
  edge_ab
  sanitize_twins '*cuda_reg*ab_1*'
  echo "wall $(($(date +%s) - start)) s"
  exit 0
fi
if [ "${1:-}" = edge128 ]; then  # where the 128 x 128 tile's m-edge time goes: two profiles
  DEADLINE=$((start + 150)) timeout 170 scripts/gpu-check "$out/t" 'gtest:*cuda_reg*'
  for size in "1023 1024 1024" "1024 1024 1023" "1024 1024 1024"; do
    [ $((start + 560 - $(date +%s))) -gt 60 ] || break
    SIZE="$size" WHICH=reg-NN TAG="reg-${size// /x}" QUEUED=1 \
      timeout $((start + 560 - $(date +%s))) dev/pending/reg-profile.sh
  done
  echo "wall $(($(date +%s) - start)) s"
  exit 0
fi
if [ "${1:-}" = 18 ]; then
  p=dev/pending
  sizes=2,4,8,12,16,24,32,40,48,64  # pointer-array batches of one size, 65,536 items each
  SANITIZE_FILTER='*cuda_stream*' DEADLINE=$((start + 560)) STEP_MINUTES=4 timeout 580 \
    scripts/gpu-check "$out/g" grouped:100000,1000000 "grouped:65536:$sizes" \
    "patch:$p/18-stream-items-apart.patch" "patch:$p/19-stream-emulate-items-apart.patch" \
    'gtest:*cuda_stream*:CudaApi.Grouped*:CudaWithoutGpu.*' grouped:100000,1000000 \
    "grouped:65536:$sizes" sanitize
  echo "wall $(($(date +%s) - start)) s"
  exit 0
fi
if [ "${1:-}" = 18b ]; then  # after 18's call: the fused launch's small-side bound with 18 in
  for n in 18 19; do env "$ceiling" git apply dev/pending/$n-*.patch || exit 1; done
  DEADLINE=$((start + 560)) timeout 580 scripts/gpu-check "$out/a" grouped
  f=-DGEMMROUTE_FUSED_SMALL_GROUP_MIB=32
  CXXFLAGS=$f CUDAFLAGS=$f BUILD=build-small32 DEADLINE=$((start + 560)) timeout 580 \
    scripts/gpu-check "$out/b" grouped
  echo "wall $(($(date +%s) - start)) s"
  exit 0
fi
if [[ "$gpu" == *H200* ]]; then
  # The campaigns after the label take what is left and resume in the next call. Item 2 (auto
  # and cuBLAS over cuda-small.txt, ~75 s) ran on 2026-12-06 with the shipped table; it runs
  # again (BENCH_CANDIDATES=cublas scripts/gpu-check OUT bench:bench/shapes/cuda-small.txt) once
  # the campaigns are merged. `next-call.sh campaigns` (a later call of the same session): the
  # campaigns alone.
  steps=(tests)
  [ "${1:-}" = campaigns ] && steps=()
  # Each campaign complete in this call is confirmed in it too (README item 1), right after its
  # shapes step: one measured to the end in an earlier call (its shapes step then returns at once)
  # is confirmed before the next campaign takes the time that is left.
  for name in "${campaigns[@]}"; do
    steps+=("shapes:tuning/$name.txt:$q:$r/$name-results.csv:3")
    steps+=("confirm:tuning/$name.txt:$q:$r/$name-results.csv:$r/$name-confirm.csv:2")
  done
  # LIMIT=SECONDS: a shorter call where device time is short (the campaigns resume).
  BENCH_CANDIDATES=cublas DEADLINE=$((start + ${LIMIT:-540})) STEP_MINUTES=5 \
    timeout $((${LIMIT:-540} + 30)) scripts/gpu-check "$out/g" "${steps[@]}"
else
  AB_PATCHES=dev/pending/44-big-copies-in-threes.patch LIMIT=${LIMIT:-330} exec "$0" 28
fi
for name in "${campaigns[@]}"; do
  for f in "$r/$name-results.csv" "$r/$name-confirm.csv"; do [ -f "$f" ] && cp "$f" "$out/"; done
done
echo "wall $(($(date +%s) - start)) s"
