"""Agentic PPO on a GPU, end to end: a random-init ~100M-parameter decoder (the `gpu-100m` preset: hidden 768, 12
layers, bf16, gradient checkpointing) plays the real CUDA kernel environment through the rollout runner (nvcc, the
evaluator's compile / verify / profile on the GPU) and takes a few multi-turn PPO steps (actor and critic). Records per
step: wall time split into rollout and update, update tokens/s, generation tokens/s, the precision-path check
(`ratio_dev`, the largest |log ratio| before the first optimiser step: 0 when behaviour and training log-probs come
from the same path), losses, KL, clip fraction, peak GPU memory. The results file is rewritten after every step (a run
cut off later keeps what it measured); checkpoint and export times are recorded apart (`checkpoint_s`, `export_s`).

    python bench/train_gpu.py                      # on an H100: 3 PPO steps; writes bench/results/train_gpu.json
    python bench/train_gpu.py --steps 5 --episodes 16 --stages 1,4
    torchrun --standalone --nproc_per_node 2 bench/train_gpu.py --episodes 16   # two GPUs, DDP via accelerate (bench/train_multi_gpu.py compares)
    python bench/train_gpu.py --backend cpu --steps 1 --episodes 2 --set tiny='{"hidden": 64, "layers": 2, "heads": 4, "kv_heads": 2}' \\
        --set dtype=float32 --set grad_ckpt=false --set max_new_tokens=32 --set max_turns=2 --set samples_per_task=1 \\
        --set mini_batch=2 --results /tmp/train_gpu_check.json        # checks the script itself on a CPU

A random-init model writes garbage, so the rewards are -1 (an unparseable reply is answered by the environment and
the episode goes on to its turn limit): the run measures the machinery — rollouts, evaluator, scoring, PPO update —
at a realistic model size, not learning.
"""
import argparse, json, os, shutil, statistics, sys, time
from pathlib import Path
import torch


def summarise(m, cfg, STAGES, device, n_params, extra, backend) -> dict:
    "The results record from a run's metrics table."
    keys = ['stage', 'step', 'episodes', 'evaluations', 'builds', 'reward_mean', 'pass_rate', 'turns_mean', 'parse_error_rate', 'seq_len_mean',
            'trainable_tokens', 'rollout_s', 'rollout_max_s', 'gen_s', 'wait_s', 'update_s', 'step_s', 'tokens_per_s', 'gen_tokens_per_s', 'ratio_dev', 'policy_loss',
            'value_loss', 'kl', 'clip_frac', 'entropy', 'explained_var', 'grad_norm_actor', 'grad_norm_critic']
    rows = [{k: r[k] for k in keys if k in r and r[k] == r[k]} for r in m.to_dict('records')]
    ppo = [r for r in rows if r['stage'] == STAGES[4]]
    med = lambda k: round(statistics.median([r[k] for r in ppo if r.get(k) is not None]), 4) if any(r.get(k) is not None for r in ppo) else None
    return dict(
        device=device, backend=backend, actor_params=n_params, model=cfg.tiny, dtype=cfg.dtype, grad_ckpt=cfg.grad_ckpt, tasks=cfg.tasks,
        episodes_per_step=cfg.ppo_episodes, samples_per_task=cfg.samples_per_task, max_turns=cfg.max_turns,
        max_new_tokens=cfg.max_new_tokens, micro_batch=cfg.micro_batch, rollout_workers=cfg.workers, steps=len(ppo),
        evaluations_per_step=med('evaluations'), builds_per_step=med('builds'), median_step_s=med('step_s'), median_rollout_s=med('rollout_s'), median_gen_s=med('gen_s'), median_wait_s=med('wait_s'), median_update_s=med('update_s'),
        median_update_tokens_per_s=med('tokens_per_s'), median_gen_tokens_per_s=med('gen_tokens_per_s'),
        max_ratio_dev=max((r.get('ratio_dev') or 0) for r in ppo) if ppo else None, **extra, per_step=rows)


def save_times(out: Path) -> dict:
    "Checkpoint and export seconds from OUT/checkpoints/times.jsonl (the trainer records them apart from the steps)."
    f = out / 'checkpoints' / 'times.jsonl'
    rows = [json.loads(l) for l in f.read_text().splitlines()] if f.is_file() else []
    ck = [r['s'] for r in rows if r['kind'] == 'checkpoint']
    ex = [r['s'] for r in rows if r['kind'] == 'export']
    return dict(checkpoints=len(ck), checkpoint_s=round(statistics.median(ck), 2) if ck else None, export_s=ex[-1] if ex else None)


def meta_params(cfg) -> int:
    "The actor's parameter count, from its config on the meta device (no memory, whatever the sharding)."
    from cuda_agent_wb.train import tiny_config, base_tokenizer
    from transformers import AutoModelForCausalLM
    with torch.device('meta'): return sum(p.numel() for p in AutoModelForCausalLM.from_config(tiny_config(base_tokenizer(cfg.tokenizer), **cfg.tiny)).parameters())


def rank_peaks(tr, out: Path) -> list|None:
    "Every process's peak GPU memory (GiB), by rank: each writes its own file, the main process reads them all."
    if not torch.cuda.is_available(): return None
    (out / f'peak_mem.{tr.acc.process_index}').write_text(str(torch.cuda.max_memory_allocated() / 2**30))
    tr.acc.wait_for_everyone()
    return [round(float((out / f'peak_mem.{r}').read_text()), 2) for r in range(tr.acc.num_processes)]


def allreduce_probe(tr, repeats: int = 5) -> float|None:
    "Median seconds of one all-reduce the size of the trainable parameters (actor and critic, their dtype) over all processes: what a step's gradient sync costs where it does not overlap the backward. Run by every process."
    from accelerate.utils import DistributedType
    if tr.acc.num_processes == 1 or tr.acc.distributed_type == DistributedType.FSDP: return None   # FSDP's collectives are gathers and scatters of shards
    import torch.distributed as dist
    ps = [p for m in (tr.actor, tr.critic) for p in m.parameters() if p.requires_grad]
    buf = torch.zeros(sum(p.numel() for p in ps), dtype=ps[0].dtype, device=tr.acc.device)
    times = []
    for _ in range(repeats + 1):
        tr.acc.wait_for_everyone(); t0 = time.time(); dist.all_reduce(buf)
        if buf.is_cuda: torch.cuda.synchronize()
        times.append(time.time() - t0)
    return round(statistics.median(times[1:]), 4)


def write(path, res: dict):
    "Write the results JSON (atomically: a reader never sees half a file)."
    p = Path(path); p.parent.mkdir(parents=True, exist_ok=True)
    tmp = p.with_suffix('.tmp'); tmp.write_text(json.dumps(res, indent=1) + '\n'); tmp.replace(p)


def main():
    import faulthandler; faulthandler.enable()   # a crash in native code (CUDA graphs, extensions) prints every thread's stack
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument('--steps', type=int, default=3, help='agentic PPO iterations')
    ap.add_argument('--episodes', type=int, default=8, help='episodes per iteration (global batch = PPO mini-batch)')
    ap.add_argument('--preset', default='gpu-100m', help="TrainConfig preset (gpu-100m-replay: episodes replay the bundled scripts, so they evaluate kernels)")
    ap.add_argument('--stages', default='4', help='stages to run (default: 4, agentic PPO only)')
    ap.add_argument('--backend', default='cuda', choices=['cuda', 'cpu'])
    ap.add_argument('--out', default='runs/train_gpu')
    ap.add_argument('--set', action='append', default=[], metavar='KEY=VALUE', help='override a TrainConfig field')
    ap.add_argument('--results', default=str(Path(__file__).parent / 'results' / 'train_gpu.json'))
    ap.add_argument('--from-metrics', help="summarise an existing metrics.jsonl instead of running (a run cut off after its steps)")
    for k in ('device', 'torch', 'transformers', 'cuda'): ap.add_argument(f'--{k}', help=f'with --from-metrics: the run\'s {k}')
    a = ap.parse_args()
    from cuda_agent_wb.train import Trainer, make_config, parse_overrides, read_metrics, STAGES
    import transformers
    ov = dict(out_dir=a.out, stages=[int(s) for s in a.stages.split(',')], backend=a.backend, ppo_iterations=a.steps,
              ppo_episodes=a.episodes, mini_batch=a.episodes, warmup_iterations=1, warmup_episodes=a.episodes, resume=False)
    cfg = make_config(a.preset, **{**ov, **parse_overrides(a.set)})
    if a.from_metrics:      # a run cut off after its steps: summarise what it measured, nothing else
        n_params = meta_params(cfg)
        res = summarise(read_metrics(a.from_metrics), cfg, STAGES, a.device or 'unknown', n_params, {}, a.backend)
        res.update(source=f"summarised from {a.from_metrics} (the run was stopped after its PPO steps, before writing this file)",
                   transformers=a.transformers or transformers.__version__, torch=a.torch or torch.__version__, cuda=a.cuda)
    else:
        if a.backend == 'cuda' and not torch.cuda.is_available(): raise SystemExit("no CUDA device visible: run this on a GPU machine")
        multi = int(os.environ.get('WORLD_SIZE', '1')) > 1       # under `accelerate launch`: the trainer clears OUT (main process)
        if Path(a.out).exists() and not multi: shutil.rmtree(a.out)
        t0 = time.time()
        tr = Trainer(cfg)
        main_process = tr.acc.is_main_process
        setup_s = time.time() - t0
        n_params = meta_params(cfg)                               # under FSDP a process holds only its shard
        if torch.cuda.is_available(): torch.cuda.reset_peak_memory_stats()
        dev = torch.cuda.get_device_name(0) if a.backend == 'cuda' else 'cpu'
        if tr.acc.num_processes > 1: dev = f"{tr.acc.num_processes} x {dev}"

        def result(done: bool) -> dict:
            extra = dict(peak_gpu_mem_gb=round(torch.cuda.max_memory_allocated() / 2**30, 2) if torch.cuda.is_available() else None,
                         setup_s=round(setup_s, 1), wall_s=round(time.time() - t0, 1), finished=done, **save_times(Path(a.out)))
            res = summarise(read_metrics(Path(a.out) / 'metrics.jsonl'), cfg, STAGES, dev, n_params, extra, a.backend)
            res.update(torch=torch.__version__, transformers=transformers.__version__, cuda=torch.version.cuda, command=' '.join(sys.argv),
                       processes=tr.acc.num_processes, episodes_per_s=round(cfg.ppo_episodes / res['median_step_s'], 4) if res.get('median_step_s') else None)
            return res

        def on_record(rec):   # written before the step's checkpoint: a run stopped while saving keeps its numbers
            if rec['stage'] == STAGES[4] and main_process: write(a.results, result(False))
        tr.metrics.listeners.append(on_record)
        tr.run()
        peaks, sync_s = rank_peaks(tr, Path(a.out)), allreduce_probe(tr)    # both collective: every process takes part
        if not main_process: return
        res = result(True)
        res.update(peak_gpu_mem_gb_per_rank=peaks, allreduce_s=sync_s, distributed=str(tr.acc.distributed_type))
    write(a.results, res)
    print(json.dumps({k: v for k, v in res.items() if k != 'per_step'}, indent=1))


if __name__ == '__main__':
    main()
    # Everything is written by now. On a loaded CPU machine the interpreter's own shutdown aborted now and then
    # ("terminate called without an active exception", exit -6; 1 run in 2 to 5 under ../shared/tools/under-load, from
    # before this script's last changes): a native thread torn down at exit. The run's results are already on disk, so
    # leave without the shutdown.
    sys.stdout.flush(); sys.stderr.flush(); os._exit(0)
