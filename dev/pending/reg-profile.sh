#!/usr/bin/env bash
# Nsight Compute profiles of the f32 register tile and of cuBLAS's SGEMM kernel at f32 2048^3,
# one item, on a machine with a CUDA GPU (a device call, from the repository root; $OUT set):
#
#   [WHICH="ARM..."] dev/pending/reg-profile.sh
#
# ARMs (default: reg-NN reg-NT cublas-NN cublas-NT): reg-NN (`cuda.reg`'s sgemm_kernel, N N),
# reg-NT (sgemm_async_kernel, N T), cublas-NN, cublas-NT, cublas-TN (cuBLAS 13.1 names its SGEMM
# kernel Kernel2 at these shapes; the template argument says which CUTLASS kernel it is), and
# big-NN, big-NT, big-TN (`cuda.reg:m=256:n=128:k=8:t=8x16`'s sgemm_big_kernel). With AB_PATCHES
# (a reg.cu patch: an A/B build) the big-* arms profile the patched copy's kernel instead.
# For each: ncu's sections (ncu-ARM.csv), the stall reasons per issued instruction
# (stall-ARM.csv) and the SASS with per-instruction counts and stall samples (sass-ARM.csv),
# packed into $OUT/regprof.tgz (bench/results/h100-ab-2026-12-06/ncu-reg-2048.tgz is one). The
# build is scripts/gpu-check's (the `cuda.reg` tests run first). On an H200 it runs
# dev/pending/next-call.sh instead (the H200's queue comes first). QUEUED=1 (next-call.sh's own
# calls, which have built and tested the tree): neither that nor the tests nor a build.
#
# SIZE="M N K" (default "2048 2048 2048") profiles another shape. The reg-* arms' kernel regex
# takes both of the 128 x 128 tile's kernels (`sgemm_(async_)?kernel`). TIMES="FORM:M:N:K ..."
# first measures each kernel's duration (gpu__time_duration, 8 launches after the first
# TIMES_SKIP, default 40; the large shapes launch fewer: 8 there) of
# `cuda.reg:m=128:...` (its split sum included; with AB_PATCHES its twin too) and of cuBLAS at
# each shape: $OUT/times.csv (ns). CUBLAS_KERNEL: the cublas-* arms' kernel
# regex (default ^Kernel2$). WHICH=none: no profile (TIMES alone). TAG: the archive is
# regprof-TAG.tgz (two calls in one run).
set -u
out="${OUT:?}"
start=$(date +%s)
gpu=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1); echo "card: $gpu"
# QUEUED: the calling queue item built the tree (the same BUILD and AB_PATCHES) and ran the
# tests. gpu-check with no step would run its default steps (the whole label and the
# sanitizers), so it is not called at all.
if [ -z "${QUEUED:-}" ]; then
  [[ "$gpu" == *H200* ]] && exec dev/pending/next-call.sh  # the H200 queue first
  STEP_MINUTES=4 timeout 300 scripts/gpu-check "$out/g" 'gtest:*cuda_reg*' >/dev/null 2>&1
  tail -3 "$out/g/summary.txt"
fi
cli=build-gpu/bin/gemmroute
w=$out/w; mkdir -p $w
size=${SIZE:-2048 2048 2048}
for form in "N N" "N T" "T N"; do echo "f32 $form $size 1 packed" > $w/s-${form// /}.txt; done
sed 's/^candidates .*/candidates cuda.reg:m=128:n=128:k=8:t=8/' tuning/cuda-reg.spec > $w/reg.spec
sed 's/^candidates .*/candidates cublas/' tuning/cuda-reg.spec > $w/cublas.spec
sed 's/^candidates .*/candidates cuda.reg:m=128:n=128:k=8:t=8:ab=1/' tuning/cuda-reg.spec > $w/ab.spec
big=cuda.reg:m=256:n=128:k=8:t=8x16${AB_PATCHES:+:ab=1}
sed "s/^candidates .*/candidates $big/" tuning/cuda-reg.spec > $w/big.spec
secs="--section SpeedOfLight --section Occupancy --section LaunchStats --section WarpStateStats --section SchedulerStats --section InstructionStats --section ComputeWorkloadAnalysis --section MemoryWorkloadAnalysis"
stall='regex:smsp__average_warps_issue_stalled_.*_per_issue_active\.ratio$'
prof() {  # ARM KERNEL-REGEX SHAPES SPEC
  local n=$1 k=$2 s=$3 sp=$4
  rm -f $w/t.csv; ncu --clock-control none --kernel-name "regex:$k" --launch-skip 3 --launch-count 1 $secs \
    --csv --page details $cli tune --device cuda:0 --shapes $s --spec $sp --out $w/t.csv > $w/ncu-$n.csv 2> $w/$n.err
  echo "$n sections rc=$?"
  rm -f $w/t.csv; ncu --clock-control none --kernel-name "regex:$k" --launch-skip 3 --launch-count 1 --metrics "$stall" \
    --csv --page raw $cli tune --device cuda:0 --shapes $s --spec $sp --out $w/t.csv > $w/stall-$n.csv 2>> $w/$n.err
  echo "$n stalls rc=$?"
  rm -f $w/t.csv; ncu --clock-control none --kernel-name "regex:$k" --launch-skip 3 --launch-count 1 --section SourceCounters \
    --import-source no --csv --page source --print-source sass $cli tune --device cuda:0 --shapes $s --spec $sp --out $w/t.csv > $w/sass-$n.csv 2>> $w/$n.err
  echo "$n sass rc=$?"
}
ours='sgemm_|split_sum_kernel' theirs='Kernel|gemm|xmma|reduce'
for shape in ${TIMES:-}; do  # FORM:M:N:K, FORM as NN
  IFS=: read -r f m n k <<< "$shape"
  echo "f32 ${f:0:1} ${f:1:1} $m $n $k 1 packed" > $w/t.txt
  for arm in reg ${AB_PATCHES:+ab} cublas; do
    re=$ours; [ $arm = cublas ] && re=$theirs
    rm -f $w/t.csv; ncu --clock-control none --kernel-name "regex:$re" --launch-skip ${TIMES_SKIP:-40} --launch-count 8 \
      --metrics gpu__time_duration.sum --csv --page raw $cli tune --device cuda:0 --shapes $w/t.txt \
      --spec $w/$arm.spec --out $w/t.csv > $w/times-$f-$m-$n-$k-$arm.csv 2>> $w/times.err
    python3 - "$w/times-$f-$m-$n-$k-$arm.csv" "$shape,$arm" <<'PY'
import csv, sys
rows = list(csv.reader(open(sys.argv[1])))
head = next((i for i, r in enumerate(rows) if "Kernel Name" in r), None)
if head is not None:
    name, dur = rows[head].index("Kernel Name"), rows[head].index("gpu__time_duration.sum")
    for r in rows[head + 2:]:
        if len(r) > max(name, dur):
            print(f"{sys.argv[2]},{r[name]},{r[dur]}")
PY
  done
done | if [ -n "${TIMES:-}" ]; then tee $out/times.csv; else cat; fi  # as it goes under $OUT
for what in ${WHICH:-reg-NN reg-NT cublas-NN cublas-NT}; do
  case $what in
    reg-*) prof $what 'sgemm_(async_)?kernel' $w/s-${what#reg-}.txt $w/reg.spec ;;
    big-*) prof $what sgemm_big_kernel $w/s-${what#big-}.txt $w/big.spec ;;
    cublas-*) prof $what "${CUBLAS_KERNEL:-^Kernel2\$}" $w/s-${what#cublas-}.txt $w/cublas.spec ;;
  esac
done
rm -f $w/t.csv
grep -h '"Kernel Name"' -A1 $w/ncu-*.csv | cut -c1-300 | head
tar czf $out/regprof${TAG:+-$TAG}.tgz -C $out w && rm -rf $w
echo "wall $(($(date +%s) - start)) s"
