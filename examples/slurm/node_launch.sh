#!/bin/bash
# One task per node (started by srun): launch this node's processes of a multi-node run with accelerate.
# usage: node_launch.sh CONFIG_JSON      (ACCEL_CONFIG: the accelerate config; MASTER_PORT: rendezvous port)
set -euo pipefail
CONFIG=$1
GPUS=${SLURM_GPUS_ON_NODE:-$(nvidia-smi -L | wc -l)}
MASTER=$(scontrol show hostnames "$SLURM_JOB_NODELIST" | head -n1)
exec python -m accelerate.commands.launch --config_file "${ACCEL_CONFIG:?set ACCEL_CONFIG}" \
  --num_machines "$SLURM_NNODES" --machine_rank "$SLURM_NODEID" --num_processes $((SLURM_NNODES * GPUS)) \
  --main_process_ip "$MASTER" --main_process_port "${MASTER_PORT:-29500}" --rdzv_backend static \
  -m cuda_agent_wb.train --config "$CONFIG"
