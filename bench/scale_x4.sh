#!/usr/bin/env bash
# Issue 51's runs on one 4-GPU host, in calls of under 10 minutes (the device tool's limit), the GPUs shared out so that
# runs of different GPU counts go side by side: `bash bench/scale_x4.sh A` ... `D`, each writing under $OUT.
#   A: service on GPU 0 (1 GPU) and on GPUs 1,2 (2 GPUs), both presets; training on GPU 3 (1 GPU)
#   B: training on GPUs 0,1 (2 GPUs); FSDP (1.08B) on GPUs 2,3, then compute-sanitizer on CUDA Agent's workdir (GPU 2)
#   C: service on GPUs 0-3 (4 GPUs), both presets
#   D: training on GPUs 0-3 (4 GPUs), then FSDP on 4 GPUs while time is left
# Side by side, the runs share the host's CPUs (64 cores): each run's results record host CPU busy shares.
# Then, on the CPU machine: python3 bench/scale_gpus.py --service .../service_scale_*.json --train .../train_scale.json --out bench/results/scale_gpus.json
set -u
cd "$(dirname "$0")/.."
source bench/device_setup.sh
: "${OUT:?set OUT}"; mkdir -p "$OUT"
svc() { CUDA_VISIBLE_DEVICES=$1 timeout "$4" python3 bench/service_gpu.py --out "$OUT/service_scale_$2.json" --presets cpu,gpu \
          --configs "$3x2" --queue "cpu=$((60 * $2)),gpu=$((60 * $2))" --no-latency > "$OUT/service_scale_$2.log" 2>&1; }
train() { CUDA_VISIBLE_DEVICES=$1 CAWB_EVAL_PRESET=cpu timeout "$3" python3 bench/train_multi_gpu.py --counts "$2" --preset gpu-100m-replay \
          --steps 2 --episodes 8 --out /tmp/train_scale --results "$OUT/train_scale_summary_$2.json" > "$OUT/train_scale_$2.log" 2>&1; }
fsdp() { CUDA_VISIBLE_DEVICES=$1 CAWB_EVAL_PRESET=cpu timeout "$3" python3 bench/train_fsdp.py --gpus "$2" --timeout $(($3 - 20)) \
          --results "$OUT/train_fsdp.json" --out /tmp/train_fsdp > "$OUT/train_fsdp_$2.log" 2>&1; }
case "${1:?phase A, B, C or D}" in
  A) svc 0 1 0 560 & svc 1,2 2 0,1 560 & train 3 1 560 & wait ;;
  B) train 0,1 2 560 & { fsdp 2,3 2 420; CUDA_VISIBLE_DEVICES=2 timeout 130 python3 bench/sanitize_gpu.py --out "$OUT/sanitize_gpu_ca.json" \
          --cuda-agent .ext/CUDA-Agent --kinds valid_cuda_agent --budget-s 100 > "$OUT/sanitize_ca.log" 2>&1; } & wait ;;
  C) svc 0,1,2,3 4 0,1,2,3 570 ;;
  D) train 0,1,2,3 4 330; fsdp 0,1,2,3 4 240 ;;
esac
nvidia-smi --query-gpu=index,name,driver_version --format=csv,noheader > "$OUT/gpus.txt" 2>&1
ls -la "$OUT"
