#!/usr/bin/env bash
# The device queue's next call (dev/pending/README.md, "The device queue"), chosen by the card
# that came, so that a call is never spent on work the card cannot do for us:
#
#   H200: queue item 0 (the whole `gpu` label) and item 1's campaigns: the transposed rows, the
#         item tiles' and the two-row tiles' lattice keys measured again with every candidate
#         (tune --shapes, tuning/cuda-quick.spec), each resumable and stopped in time;
#   other cards (an H100): queue item 0 only (a same-card figure would not enter the H200 table).
#
#   dev/pending/next-call.sh      (in the device tool's `run`, from the repository root; $OUT set)
#
# The campaigns' CSVs come back under $OUT; copy them into bench/results/h200/ before the next
# call, which then resumes them. Once all four are complete, `tune --confirm` each (the
# README's item 1) and run scripts/h200-tables.
set -u
out="${OUT:?the device tool sets OUT}"
gpu=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)
echo "card: $gpu"
start=$(date +%s)
q=tuning/cuda-quick.spec
r=bench/results/h200
steps=(tests)
if [[ "$gpu" == *H200* ]]; then
  for name in cuda-stream-transposed cuda-stream-transposed-b cuda-stream-items-rows \
    cuda-stream-two-rows-rows; do
    steps+=("shapes:tuning/$name.txt:$q:$r/$name-results.csv:3")
  done
fi
DEADLINE=$((start + 540)) STEP_MINUTES=5 timeout 570 scripts/gpu-check "$out/g" "${steps[@]}"
for name in cuda-stream-transposed cuda-stream-transposed-b cuda-stream-items-rows \
  cuda-stream-two-rows-rows; do
  [ -f "$r/$name-results.csv" ] && cp "$r/$name-results.csv" "$out/"
done
echo "wall $(($(date +%s) - start)) s"
