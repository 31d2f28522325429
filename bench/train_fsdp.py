"""FSDP training of a billion-parameter policy (issue 51): `accelerate launch` with examples/accelerate/fsdp.yaml (FULL_SHARD,
one unit per decoder layer) runs bench/train_gpu.py's agentic PPO on N GPUs with a random-init ~1.08B-parameter decoder
(`train.sharding.BILLION`: hidden 2048, 24 layers) as actor and critic, on the `gpu-100m-replay` preset: the bundled
scripts replayed through the live actor, so the episodes build, verify and time real kernels. Records per run: the
parameter count, GPUs, whether it finished, the step time and its split, each GPU's peak memory, and beside it the
sharding arithmetic's estimate (`train.sharding.fsdp_memory_gib`, actor and critic, activations not included).

    python bench/train_fsdp.py --gpus 2                   # on a 2-GPU machine; bench/results/train_fsdp.json
    python bench/train_fsdp.py --gpus 4 --results $OUT/train_fsdp.json   # adds the 4-GPU run to an earlier file
"""
import argparse, json, os, subprocess, sys, time
from pathlib import Path

HERE = Path(__file__).parent
ROOT = HERE.parent


def estimate(gpus: int) -> dict:
    "The sharding arithmetic for actor plus critic at BILLION on `gpus` processes (GiB per GPU; bf16 weights, float32 optimiser states)."
    import torch
    from transformers import AutoModelForCausalLM, AutoModelForTokenClassification
    from cuda_agent_wb.train.models import base_tokenizer, tiny_config
    from cuda_agent_wb.train.sharding import BILLION, fsdp_memory_gib
    cfg = tiny_config(base_tokenizer('bpe'), **BILLION)
    with torch.device('meta'):
        actor = AutoModelForCausalLM.from_config(cfg)
        cfg.num_labels = 1; critic = AutoModelForTokenClassification.from_config(cfg)
    a, c = fsdp_memory_gib(actor, gpus), fsdp_memory_gib(critic, gpus)
    both = {k: round(a[k] + c[k], 3) for k in a} | dict(rollout_full_params=a['rollout_full_params'])   # rollouts gather the actor only
    return both | dict(actor_params=sum(p.numel() for p in actor.parameters()))


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument('--gpus', type=int, default=2)
    ap.add_argument('--steps', type=int, default=2, help='agentic PPO iterations')
    ap.add_argument('--episodes', type=int, default=4, help='episodes per GPU per iteration')
    ap.add_argument('--timeout', type=float, default=540, help='seconds before the run is stopped (finished: false)')
    ap.add_argument('--results', default=str(HERE / 'results' / 'train_fsdp.json'))
    ap.add_argument('--out', default='runs/train_fsdp')
    a = ap.parse_args()
    import torch
    if torch.cuda.device_count() < a.gpus: raise SystemExit(f"--gpus {a.gpus}: only {torch.cuda.device_count()} GPU(s) visible")
    from cuda_agent_wb.train.sharding import BILLION
    res_n = Path(a.results).with_name(f"{Path(a.results).stem}_{a.gpus}.json")
    cmd = [sys.executable, '-m', 'accelerate.commands.launch', '--config_file', str(ROOT / 'examples/accelerate/fsdp.yaml'),
           '--num_processes', str(a.gpus), str(HERE / 'train_gpu.py'), '--preset', 'gpu-100m-replay', '--steps', str(a.steps),
           '--episodes', str(a.episodes * a.gpus), '--out', f"{a.out}_{a.gpus}", '--results', str(res_n),
           '--set', f"tiny={json.dumps(BILLION)}", '--set', f"mini_batch={a.episodes * a.gpus}"]
    t0 = time.time()
    try: r = subprocess.run(cmd, text=True, capture_output=True, timeout=a.timeout); rc, err = r.returncode, r.stderr
    except subprocess.TimeoutExpired as e: rc, err = 'timeout', (e.stderr or b'').decode(errors='replace') if isinstance(e.stderr, bytes) else (e.stderr or '')
    got = json.loads(res_n.read_text()) if res_n.is_file() else {}
    run = dict(gpus=a.gpus, params=got.get('actor_params'), finished=bool(got.get('finished')) and rc == 0, exit=rc,
               distributed=got.get('distributed'), steps=got.get('steps'), episodes_per_step=got.get('episodes_per_step'),
               evaluations_per_step=got.get('evaluations_per_step'), median_step_s=got.get('median_step_s'),
               median_gen_s=got.get('median_gen_s'), median_wait_s=got.get('median_wait_s'), median_update_s=got.get('median_update_s'),
               peak_gpu_mem_gb_per_rank=got.get('peak_gpu_mem_gb_per_rank'), estimate_gib_per_gpu=estimate(a.gpus),
               device=got.get('device'), torch=got.get('torch'), transformers=got.get('transformers'), cuda=got.get('cuda'),
               wall_s=round(time.time() - t0, 1), command=' '.join(cmd), error=None if rc == 0 else err[-2000:])
    out = Path(a.results); out.parent.mkdir(parents=True, exist_ok=True)
    summary = json.loads(out.read_text()) if out.is_file() else dict(runs=[])
    summary['runs'] = sorted([x for x in summary['runs'] if x['gpus'] != a.gpus] + [run], key=lambda x: x['gpus'])
    fin = [x for x in summary['runs'] if x['finished']]
    summary.update(what='agentic PPO under FSDP (examples/accelerate/fsdp.yaml) with a random-init ~1.08B-parameter actor and critic; episodes replay the bundled scripts (real evaluations)',
                   commit=os.environ.get('CAWB_COMMIT') or subprocess.run(['git', 'rev-parse', '--short', 'HEAD'], capture_output=True, text=True, cwd=ROOT).stdout.strip(),
                   params=run['params'] or summary.get('params'), gpus=max((x['gpus'] for x in fin), default=None), finished=bool(fin),
                   peak_gpu_mem_gb_per_rank={str(x['gpus']): x['peak_gpu_mem_gb_per_rank'] for x in fin})
    out.write_text(json.dumps(summary, indent=1) + '\n')
    print(json.dumps({k: v for k, v in run.items() if k != 'error'}, indent=1)); print(run['error'] or '', file=sys.stderr)
    print(f"wrote {out}")


if __name__ == '__main__': main()
