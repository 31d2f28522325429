#!/usr/bin/env bash
# Issues 48 and 50's GPU items on one H100/H200, in calls of under 10 minutes (the device tool's limit), one run at a
# time (side by side they distort each other): `bash bench/h200_session.sh A` ... `E`, each writing under $OUT.
#   A: tests/test_gpu.py whole; sanitizer on CUDA Agent's workdir (valid: must not be flagged); timing_fair (relu, CA, null floor)
#   B: the host probe (time per call by NUMA node); reward stability at the cpu preset; py-spy of one service worker (cpu preset)
#   C: tests/test_gpu.py whole (~5.5 min on an H200); reward stability at the cpu preset, twice a case
#   F: timing_fair once
#   I: the service's throughput with a task's candidates timed together (2 and 4 workers), then timing_fair once
#   J: tests/test_gpu.py whole, then the service's throughput with two workers (groups loaded and verified side by side)
#   K: the service's throughput (2 and 3 workers; spares warming behind each group member, the group's reports side by side), then timing_fair once
#   L: the service's throughput (2 workers, the groups' wall split), then timing_fair on CUDA Agent's workdir and relu_vec4
#   V: the service with the task's timed reference started ahead (2 spares), then 8 spares with 2 and 3 start slots ([timing] warm_starts)
#   W: timing_fair once, then the service with 2 spares (the reference started ahead)
#   M: the service's throughput alone (2 and 3 workers)
#   U: the service with a spare's whole CUDA start held and 8 spares (2 and 3 workers), then the GPU tests of groups, neighbours, helpers and exploits
#   T: cuda_start_probe.py (N processes starting CUDA at once), then S's service runs with 2 and 4 spares held, 2 not held
#   S: the zygote probe with cpp_extension preloaded (with and without NVML's device count); the service, 2 workers: a spare's whole CUDA start under the device lock with 2 and 6 spares, then only its kernels with 2
#   N: relu_probe.py (eager, relu_vec4 and relu_plain timed outside the harness, one plain process)
#   H1, H2: tests/test_gpu.py in two calls (CAWB_TEST_SHARD=1/2, 2/2: every other test; whole, it outlasts one call)
#   HH: H1 then H2 in one call (~510 s on a warm H200)
#   H: tests/test_gpu.py whole, alone, with the time a cold machine needs (~6-8 min)
#   G: reward stability at the cpu preset beside a trainer holding the device lock, then beside a rogue process (must be seen)
#   G2: reward stability at the cpu preset beside a trainer, every case (builds side by side first), in one call's time
#   P: clock_probe.py (the clock over plain processes: eager, eager again, relu_vec4), then G2's run in what is left of the call
#   Q: clock_probe.py (with the one-CPU arrangement), timing_fair on the ReLUs and the null copy, the GPU tests never finished in one call and the group's
#   R: decoy_probe.py (the scalar decoy test's evaluations, printed as they end; how long the evaluator takes to close), the null floor
#   D: reward stability at the gpu preset (merged with B's by --merge on the CPU machine)
#   E: the service's throughput at the cpu preset (2 and 4 workers, the cycle split by stage)
# Carry .whl and .ext/CUDA-Agent/agent_workdir; export CAWB_COMMIT=<hash> first. Then, on the CPU machine, copy the JSONs
# into bench/results/ (test_gpu log as test_gpu_<device>_<commit>_log.txt).
set -u
cd "$(dirname "$0")/.."
source bench/device_setup.sh
: "${OUT:?set OUT}"; mkdir -p "$OUT"
run() { local name=$1 limit=$2; shift 2; echo "== $name: $*" >> "$OUT/commands.txt"
        timeout "$limit" "$@" > "$OUT/$name.log" 2>&1; echo "$name rc=$?" >> "$OUT/commands.txt"; }
case "${1:?phase A to N, H1, H2}" in
  A) run test_gpu 260 python3 -m pytest -q -p no:cacheprovider tests/test_gpu.py
     run sanitize_ca 150 python3 bench/sanitize_gpu.py --out "$OUT/sanitize_gpu_ca.json" --cuda-agent .ext/CUDA-Agent --kinds valid_cuda_agent --budget-s 110
     run timing_fair 150 python3 bench/timing_fair.py --out "$OUT/timing_fair.json" --repeat 2 ;;
  B) run host_probe 60 bash -c "python3 bench/host_probe.py > $OUT/host_probe.json"
     CAWB_EVAL_PRESET=cpu run stability_cpu 280 python3 bench/reward_stability.py --gpu --repeat 3 --out "$OUT/reward_stability_gpu_cpu.json"
     run prof 140 python3 bench/prof_service.py --out "$OUT/prof" --preset cpu --workers 1 --queue 24 ;;
  C) run test_gpu 340 python3 -m pytest -q -p no:cacheprovider tests/test_gpu.py
     CAWB_EVAL_PRESET=cpu run stability_cpu 190 python3 bench/reward_stability.py --gpu --repeat 2 --out "$OUT/reward_stability_gpu_cpu.json" ;;
  G) CAWB_EVAL_PRESET=cpu run stability_trainer 160 python3 bench/reward_stability.py --gpu --repeat 2 --neighbour trainer --out "$OUT/reward_stability_trainer.json"
     CAWB_EVAL_PRESET=cpu run stability_rogue 50 python3 bench/reward_stability.py --gpu --repeat 1 --neighbour rogue --cases relu_plain --out "$OUT/reward_stability_rogue.json" ;;
  G2) CAWB_EVAL_PRESET=cpu run stability_trainer 540 python3 bench/reward_stability.py --gpu --repeat 2 --neighbour trainer --out "$OUT/reward_stability_trainer.json" ;;
  P) run clock_probe 100 python3 bench/clock_probe.py --out "$OUT/clock_probe.json"
     CAWB_EVAL_PRESET=cpu run stability_trainer 470 python3 bench/reward_stability.py --gpu --repeat 2 --neighbour trainer --out "$OUT/reward_stability_trainer.json" ;;
  Q) run clock_probe 130 python3 bench/clock_probe.py --out "$OUT/clock_probe.json"
     run timing_fair 240 python3 bench/timing_fair.py --out "$OUT/timing_fair.json" --repeat 2 --cases relu_plain,relu_vec4,null_copy
     run test_gpu_rest 200 python3 -m pytest -q -p no:cacheprovider tests/test_gpu.py -k "scalar_decoy or neighbour_started or group_timed or accepted_with" ;;
  R) run decoy_probe 200 python3 bench/decoy_probe.py --out "$OUT/decoy_probe.json"
     run timing_fair 200 python3 bench/timing_fair.py --out "$OUT/timing_fair.json" --repeat 3 --cases null_copy ;;
  I) run service 300 python3 bench/service_gpu.py --out "$OUT/service_1gpu.json" --presets cpu --configs "0x2;0x4" --queue cpu=96 --no-latency
     run timing_fair 200 python3 bench/timing_fair.py --out "$OUT/timing_fair.json" --repeat 1 ;;
  J) run test_gpu 360 python3 -m pytest -q -p no:cacheprovider tests/test_gpu.py
     run service 165 python3 bench/service_gpu.py --out "$OUT/service_1gpu.json" --presets cpu --configs "0x2" --queue cpu=96 --no-latency ;;
  K) run service 300 python3 bench/service_gpu.py --out "$OUT/service_1gpu.json" --presets cpu --configs "0x2;0x3" --queue cpu=96 --no-latency
     run timing_fair 220 python3 bench/timing_fair.py --out "$OUT/timing_fair.json" --repeat 1 ;;
  L) run service 200 python3 bench/service_gpu.py --out "$OUT/service_1gpu.json" --presets cpu --configs "0x2" --queue cpu=96 --no-latency
     run timing_fair 300 python3 bench/timing_fair.py --out "$OUT/timing_fair.json" --repeat 2 --cases ca_workdir,relu_vec4 ;;
  S) for pre in "" 1; do PYTORCH_NVML_BASED_CUDA_CHECK=$pre run zygote_probe_nvml$pre 60 python3 bench/zygote_cuda_probe.py torch,torch.utils.cpp_extension; done
     CAWB_TIMING_WARM_CUDA_HELD=true CAWB_TIMING_GROUP_SPARES=2 run service_held_s2 170 python3 bench/service_gpu.py --out "$OUT/service_held_s2.json" --presets cpu --configs "0x2" --queue cpu=96 --no-latency
     CAWB_TIMING_WARM_CUDA_HELD=true CAWB_TIMING_GROUP_SPARES=6 run service_held_s6 170 python3 bench/service_gpu.py --out "$OUT/service_held_s6.json" --presets cpu --configs "0x2" --queue cpu=96 --no-latency
     CAWB_TIMING_WARM_CUDA_HELD=false CAWB_TIMING_GROUP_SPARES=2 run service_kernels_s2 170 python3 bench/service_gpu.py --out "$OUT/service_kernels_s2.json" --presets cpu --configs "0x2" --queue cpu=96 --no-latency ;;
  T) run cuda_start_probe 120 python3 bench/cuda_start_probe.py --out "$OUT/cuda_start_probe.json" --counts 1,2,4,8 --repeat 2
     CAWB_TIMING_WARM_CUDA_HELD=true CAWB_TIMING_GROUP_SPARES=2 run service_held_s2 150 python3 bench/service_gpu.py --out "$OUT/service_held_s2.json" --presets cpu --configs "0x2" --queue cpu=96 --no-latency
     CAWB_TIMING_WARM_CUDA_HELD=true CAWB_TIMING_GROUP_SPARES=4 run service_held_s4 150 python3 bench/service_gpu.py --out "$OUT/service_held_s4.json" --presets cpu --configs "0x2" --queue cpu=96 --no-latency
     CAWB_TIMING_WARM_CUDA_HELD=false CAWB_TIMING_GROUP_SPARES=2 run service_kernels_s2 150 python3 bench/service_gpu.py --out "$OUT/service_kernels_s2.json" --presets cpu --configs "0x2" --queue cpu=96 --no-latency ;;
  U) CAWB_TIMING_WARM_CUDA_HELD=true CAWB_TIMING_GROUP_SPARES=8 run service_held_s8_w2 150 python3 bench/service_gpu.py --out "$OUT/service_held_s8_w2.json" --presets cpu --configs "0x2" --queue cpu=96 --no-latency
     CAWB_TIMING_WARM_CUDA_HELD=true CAWB_TIMING_GROUP_SPARES=8 run service_held_s8_w3 150 python3 bench/service_gpu.py --out "$OUT/service_held_s8_w3.json" --presets cpu --configs "0x3" --queue cpu=96 --no-latency
     CAWB_TIMING_WARM_CUDA_HELD=true CAWB_TIMING_GROUP_SPARES=8 run test_gpu_part 240 python3 -m pytest -q -p no:cacheprovider tests/test_gpu.py -k "group_timed or neighbour_started or detached_helper or exploit_rejected" ;;
  V) CAWB_TIMING_GROUP_SPARES=2 CAWB_TIMING_WARM_STARTS=0 run service_s2 150 python3 bench/service_gpu.py --out "$OUT/service_s2.json" --presets cpu --configs "0x2" --queue cpu=96 --no-latency
     CAWB_TIMING_GROUP_SPARES=8 CAWB_TIMING_WARM_STARTS=2 run service_s8_k2 150 python3 bench/service_gpu.py --out "$OUT/service_s8_k2.json" --presets cpu --configs "0x2" --queue cpu=96 --no-latency
     CAWB_TIMING_GROUP_SPARES=8 CAWB_TIMING_WARM_STARTS=3 run service_s8_k3 150 python3 bench/service_gpu.py --out "$OUT/service_s8_k3.json" --presets cpu --configs "0x2" --queue cpu=96 --no-latency
     run test_gpu_part 110 python3 -m pytest -q -p no:cacheprovider tests/test_gpu.py -k "group_timed or exploit_rejected" ;;
  W) run timing_fair 240 python3 bench/timing_fair.py --out "$OUT/timing_fair.json" --repeat 1
     CAWB_TIMING_GROUP_SPARES=2 run service_s2 170 python3 bench/service_gpu.py --out "$OUT/service_s2.json" --presets cpu --configs "0x2" --queue cpu=96 --no-latency ;;
  M) run service 280 python3 bench/service_gpu.py --out "$OUT/service_1gpu.json" --presets cpu --configs "0x2;0x3" --queue cpu=96 --no-latency ;;
  N) run relu_probe 150 python3 bench/relu_probe.py --out "$OUT/relu_probe.json" ;;
  H1|H2) CAWB_TEST_SHARD=${1#H}/2 run test_gpu_$1 520 python3 -m pytest -q -p no:cacheprovider tests/test_gpu.py ;;
  HH) CAWB_TEST_SHARD=1/2 run test_gpu_H1 250 python3 -m pytest -q -p no:cacheprovider tests/test_gpu.py
      CAWB_TEST_SHARD=2/2 run test_gpu_H2 320 python3 -m pytest -q -p no:cacheprovider tests/test_gpu.py ;;
  H) run test_gpu 520 python3 -m pytest -q -p no:cacheprovider tests/test_gpu.py ;;
  F) run timing_fair 220 python3 bench/timing_fair.py --out "$OUT/timing_fair.json" --repeat 1 ;;
  D) CAWB_EVAL_PRESET=gpu run stability_gpu 560 python3 bench/reward_stability.py --gpu --repeat 3 --out "$OUT/reward_stability_gpu_gpu.json" ;;
  E) run service 290 python3 bench/service_gpu.py --out "$OUT/service_1gpu.json" --presets cpu --configs "0x2;0x4" --queue cpu=60 --no-latency ;;
esac
nvidia-smi --query-gpu=index,name,driver_version --format=csv,noheader > "$OUT/gpus.txt" 2>&1
cat "$OUT/commands.txt"; tail -n 3 "$OUT"/*.log
# the device tool brings back a few files only: everything in one archive
tar czf /tmp/h200_$1.tgz -C "$OUT" . && find "$OUT" -mindepth 1 -delete && mv /tmp/h200_$1.tgz "$OUT/"
