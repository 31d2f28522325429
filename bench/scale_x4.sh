#!/usr/bin/env bash
# Issue 51's runs on one 4-GPU host, in calls of under 10 minutes (the device tool's limit), the GPUs shared out so that
# runs of different GPU counts go side by side: `bash bench/scale_x4.sh A` ... `D`, each writing under $OUT.
#   A: service on GPU 0 (1 GPU) and on GPUs 1,2 (2 GPUs), both presets; training on GPU 3 (1 GPU). Side by side, the
#      services ran at less than half their speed alone (1,782 candidates per GPU-hour against 4,230), so the service
#      points come from C; the training point stands, with that caveat (its step is 80 % evaluation).
#   B: FSDP (1.08B) on GPUs 0,1 beside training on GPUs 2,3; then training on GPUs 0-3
#   C: the service alone on 1, 4, then 2 GPUs (the cpu preset)
# Then, on the CPU machine: python3 bench/scale_gpus.py --service .../service_scale_*.json --train .../train_scale.json --out bench/results/scale_gpus.json
set -u
cd "$(dirname "$0")/.."
source bench/device_setup.sh
: "${OUT:?set OUT}"; mkdir -p "$OUT"
svc() { CUDA_VISIBLE_DEVICES=$1 timeout "$4" python3 bench/service_gpu.py --out "$OUT/service_scale_$2.json" --presets "$5" \
          --configs "$3x2" --queue "$(echo "$5" | tr , '\n' | sed "s/$/=$((60 * $2))/" | paste -sd,)" --no-latency > "$OUT/service_scale_$2.log" 2>&1; }
train() { CUDA_VISIBLE_DEVICES=$1 CAWB_EVAL_PRESET=cpu timeout "$3" python3 bench/train_multi_gpu.py --counts "$2" --preset gpu-100m-replay \
          --steps 2 --episodes 8 --out /tmp/train_scale --results "$OUT/train_scale_summary_$2.json" > "$OUT/train_scale_$2.log" 2>&1; }
fsdp() { CUDA_VISIBLE_DEVICES=$1 CAWB_EVAL_PRESET=cpu timeout "$3" python3 bench/train_fsdp.py --gpus "$2" --timeout $(($3 - 20)) \
          --results "$OUT/train_fsdp.json" --out /tmp/train_fsdp > "$OUT/train_fsdp_$2.log" 2>&1; }
case "${1:?phase A, B or C}" in
  A) svc 0 1 0 560 cpu,gpu & svc 1,2 2 0,1 560 cpu,gpu & train 3 1 560 & wait ;;       # side by side: see the header
  B) { fsdp 0,1 2 270; } & train 2,3 2 270 & wait; train 0,1,2,3 4 250 ;;
  C) svc 0 1 0 170 cpu; svc 0,1,2,3 4 0,1,2,3 180 cpu; svc 0,1 2 0,1 170 cpu ;;        # one at a time, the cpu preset only
esac
nvidia-smi --query-gpu=index,name,driver_version --format=csv,noheader > "$OUT/gpus.txt" 2>&1
ls -la "$OUT"; tail -n 3 "$OUT"/*.log
# the device tool brings back a few files only: everything in one archive
tar czf /tmp/phase_$1.tgz -C "$OUT" . && find "$OUT" -mindepth 1 -delete && mv /tmp/phase_$1.tgz "$OUT/"
