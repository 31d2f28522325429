#!/usr/bin/env python3
"""Are the actor's sampled replies what the model says? Each generated token is checked against a full forward pass
(no KV cache) over the prompt and the reply so far, for a run of generation calls shaped like a PPO rollout (batch
sizes 8, 4, 8, 2, 8, 1; new prompts of different lengths each call; greedy decoding).

    python bench/gen_check.py                                   # on a GPU: the gpu-100m preset's actor
    python bench/gen_check.py --backend cpu --set tiny='{"hidden": 64, "layers": 2, "heads": 4, "kv_heads": 2}' \\
        --set dtype=float32 --prompt 256 --new 8                 # checks the script itself on a CPU

Modes, each in its own process: `dynamic` (gen_cache=dynamic), `static` (gen_cache=static: the policy's own cache per
shape, reused), `static-per-call` (a new static cache in every call, as `generate(cache_implementation='static')`
makes it; what the policy did before). Per call: `agree` is the share of generated tokens that are the full pass's
argmax, and `gap` the mean of (max logit - the token's logit) / the logits' std; a right cache gives agree near 1 and
gap near 0 (bf16 rounding makes near-ties go either way).
"""
import argparse, json, subprocess, sys, time
from pathlib import Path
import torch

MODES = ('dynamic', 'static', 'static-per-call')
BATCHES = (8, 4, 8, 2, 8, 1)


def check_reply(model, prompt: list, reply: list) -> dict:
    "Agreement of greedy `reply` with a full forward pass over `prompt + reply`."
    dev = next(model.parameters()).device
    ids = torch.tensor([prompt + reply], device=dev)
    with torch.no_grad(): logits = model(input_ids=ids).logits[0, len(prompt) - 1:-1].float()
    tok = torch.tensor(reply, device=dev)
    top = logits.max(-1).values
    gap = (top - logits.gather(1, tok[:, None])[:, 0]) / logits.std(-1).clamp_min(1e-6)
    bad = (logits.argmax(-1) != tok).nonzero()
    return dict(n=len(reply), agree=float((logits.argmax(-1) == tok).float().mean()), gap=float(gap.mean()),
                first_miss=int(bad[0, 0]) if len(bad) else None)


def run_mode(a) -> dict:
    "Generate with one cache mode and check every reply."
    from cuda_agent_wb.train import Trainer, make_config, parse_overrides
    cfg = make_config('gpu-100m', backend=a.backend, out_dir='runs/gen_check', stages=[4], resume=False, temperature=0,
                      gen_cache='dynamic' if a.mode == 'dynamic' else 'static', **parse_overrides(a.set))
    tr = Trainer(cfg); pol = tr.policy(); model = pol.model
    pol.max_new_tokens, pol.temperature = a.new, 0
    if a.mode == 'static-per-call':   # the policy's old settings: generate allocates a new static cache each call
        from transformers import GenerationConfig
        extra = {'max_cache_len': pol.context_tokens} if pol.context_tokens and hasattr(GenerationConfig(), 'max_cache_len') else {}
        pol.cache_kwargs = lambda *_: dict(cache_implementation='static', **extra)
    g = torch.Generator().manual_seed(0)
    calls = []
    for i, b in enumerate(BATCHES):
        lens = torch.randint(a.prompt // 2, a.prompt + 1, (b,), generator=g).tolist()
        prompts = [torch.randint(10, len(tr.tok) - 10, (n,), generator=g).tolist() for n in lens]
        t0 = time.perf_counter(); replies, _ = pol._generate(prompts); secs = time.perf_counter() - t0
        was = model.training; model.eval()
        checks = [check_reply(model, p, r) for p, r in zip(prompts, replies) if r]
        model.train(was)
        row = dict(call=i, batch=b, s=round(secs, 2), replies=len(checks),
                   agree=round(sum(c['agree'] for c in checks) / max(1, len(checks)), 4),
                   gap=round(sum(c['gap'] for c in checks) / max(1, len(checks)), 4),
                   first_miss=[c['first_miss'] for c in checks])
        calls.append(row); print(a.mode, row, flush=True)
    return dict(mode=a.mode, calls=calls, agree_after_first=round(sum(c['agree'] for c in calls[1:]) / max(1, len(calls) - 1), 4))


def main():
    import faulthandler; faulthandler.enable()
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument('--backend', default='cuda', choices=['cuda', 'cpu'])
    ap.add_argument('--prompt', type=int, default=5600, help='longest prompt in tokens (each is between half this and this)')
    ap.add_argument('--new', type=int, default=24, help='new tokens per reply')
    ap.add_argument('--modes', default=','.join(MODES))
    ap.add_argument('--mode', help=argparse.SUPPRESS)   # internal: run one mode in this process and print its JSON
    ap.add_argument('--set', action='append', default=[], metavar='KEY=VALUE', help='override a TrainConfig field')
    ap.add_argument('--results', default=str(Path(__file__).parent / 'results' / 'gen_check.json'))
    a = ap.parse_args()
    if a.mode:
        print('RESULT ' + json.dumps(run_mode(a)), flush=True); return
    res = []
    for m in a.modes.split(','):
        cmd = [sys.executable, __file__, '--mode', m, '--backend', a.backend, '--prompt', str(a.prompt), '--new', str(a.new)]
        for s in a.set: cmd += ['--set', s]
        p = subprocess.run(cmd, capture_output=True, text=True)
        sys.stderr.write(p.stderr[-3000:] if p.returncode else '')
        got = [l[7:] for l in p.stdout.splitlines() if l.startswith('RESULT ')]
        res.append(json.loads(got[0]) if got else dict(mode=m, error=f"exit {p.returncode}: {p.stderr.strip()[-500:]}"))
        print(m, {k: v for k, v in res[-1].items() if k != 'calls'}, flush=True)
    import transformers
    out = dict(device=torch.cuda.get_device_name(0) if a.backend == 'cuda' else 'cpu', torch=torch.__version__,
               transformers=transformers.__version__, prompt_tokens=a.prompt, new_tokens=a.new, batches=BATCHES,
               command='bench/gen_check.py ' + ' '.join(sys.argv[1:]), modes=res)
    Path(a.results).parent.mkdir(parents=True, exist_ok=True)
    Path(a.results).write_text(json.dumps(out, indent=1) + '\n')


if __name__ == '__main__': main()
