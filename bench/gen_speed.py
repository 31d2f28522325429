#!/usr/bin/env python3
"""Where does the actor's generation time go? Decode-step time of the training actor, measured several ways on one
machine, to explain the agentic PPO rollout speed (bench/results/train_gpu.json: ~74 sampled tokens/s on an H100 for
a 104M model, about 0.13 s per decode step for a batch of 8 with 5.6k-token prompts).

    python bench/gen_speed.py                                   # on a GPU: the gpu-100m preset's actor
    python bench/gen_speed.py --backend cpu --set tiny='{"hidden": 64, "layers": 2, "heads": 4, "kv_heads": 2}' \\
        --set dtype=float32 --prompt 512 --new 16                # checks the script itself on a CPU

Rows: the Trainer's actor through `ActorPolicy._generate` (what rollouts use; also with `gen_cache=static`, whose first
call per batch size includes compiling the decode step), the same model called directly with
and without the KV cache, and a freshly built model without gradient checkpointing; each for batch 1 and batch 8.
Per-step time = (time for `new` tokens - time for 1 token) / (new - 1), so the prompt's prefill is left out.
"""
import argparse, json, time
from pathlib import Path
import torch


def step_ms(gen, new: int, repeats: int = 3) -> float:
    "Milliseconds per decode step of `gen(n_new)`, prefill excluded: median over `repeats` (one-token, `new`-token) pairs."
    import statistics
    gen(new)                                 # warm-up at full length (kernels, allocator, the whole KV cache)
    per = []
    for _ in range(repeats):
        t0 = time.perf_counter(); gen(1); one = time.perf_counter() - t0
        t0 = time.perf_counter(); gen(new); many = time.perf_counter() - t0
        per.append((many - one) / (new - 1))
    return round(1e3 * statistics.median(per), 2)


def main():
    import faulthandler; faulthandler.enable()   # a crash in native code (CUDA graphs, extensions) prints every thread's stack
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument('--backend', default='cuda', choices=['cuda', 'cpu'])
    ap.add_argument('--prompt', type=int, default=5600, help='prompt length in tokens')
    ap.add_argument('--new', type=int, default=64, help='new tokens per timed generate')
    ap.add_argument('--set', action='append', default=[], metavar='KEY=VALUE', help='override a TrainConfig field')
    ap.add_argument('--results', default=str(Path(__file__).parent / 'results' / 'gen_speed.json'))
    a = ap.parse_args()
    from cuda_agent_wb.train import Trainer, make_config, parse_overrides, tiny_config
    from transformers import AutoModelForCausalLM
    cfg = make_config('gpu-100m', backend=a.backend, out_dir='runs/gen_speed', stages=[4], resume=False, **parse_overrides(a.set))
    tr = Trainer(cfg)
    pol = tr.policy(); model = pol.model; dev = next(model.parameters()).device
    g = torch.Generator().manual_seed(0)
    prompts = {b: [torch.randint(10, len(tr.tok) - 10, (a.prompt,), generator=g).tolist() for _ in range(b)] for b in (1, 8)}

    def via_policy(b):
        def gen(n): pol.max_new_tokens = model.generation_config.min_new_tokens = n; pol._generate(prompts[b])
        return gen

    def direct(m, b, use_cache, **extra):
        ids = torch.tensor(prompts[b], device=dev)
        def gen(n):
            with torch.no_grad():
                m.generate(input_ids=ids, attention_mask=torch.ones_like(ids), max_new_tokens=n, min_new_tokens=n, do_sample=True,
                           top_k=0, top_p=1.0, use_cache=use_cache, pad_token_id=pol.pad_id, **extra)
            if dev.type == 'cuda': torch.cuda.synchronize()
        return gen

    rows = []
    def row(name, b, gen):
        ms = step_ms(gen, a.new); rows.append(dict(what=name, batch=b, ms_per_step=ms)); print(f"{name:48s} batch {b}: {ms:8.2f} ms/step", flush=True)
    info = dict(training=model.training, grad_ckpt=getattr(model, 'is_gradient_checkpointing', None),
                attn=model.config._attn_implementation, dtype=str(next(model.parameters()).dtype), device=str(dev))
    print(info, flush=True)
    for b in (1, 8): row('ActorPolicy._generate (rollout path)', b, via_policy(b))
    pol.cache = 'static'                     # gen_cache=static: fixed-size cache; on a GPU generate compiles the decode step
    for b in (1, 8):
        t0 = time.perf_counter(); via_policy(b)(2); first = round(time.perf_counter() - t0, 1)   # includes the compile
        row('ActorPolicy._generate, static cache', b, via_policy(b)); rows[-1]['first_call_s'] = first
    pol.cache = 'dynamic'
    model.generation_config.min_new_tokens = None
    model.eval()
    for b in (1, 8):
        row('actor.generate, eval, use_cache=True', b, direct(model, b, True))
        row('actor.generate, eval, use_cache=False', b, direct(model, b, False))
    for b in (1, 8): row('actor.generate, eval, cache, eos = the stop-token list', b, direct(model, b, True, eos_token_id=pol.stops))
    model.train()
    for b in (1, 8): row('ActorPolicy._generate again (order check)', b, via_policy(b))
    model.eval()
    for b in (1, 8): row('ActorPolicy._generate, model left in eval mode', b, via_policy(b))
    model.train()
    fresh = AutoModelForCausalLM.from_config(tiny_config(tr.tok, **cfg.tiny), dtype=next(model.parameters()).dtype).to(dev).eval()
    for b in (1, 8): row('fresh model (no checkpointing), eval, cache', b, direct(fresh, b, True))
    import transformers
    res = dict(device=torch.cuda.get_device_name(0) if dev.type == 'cuda' else 'cpu', torch=torch.__version__,
               transformers=transformers.__version__, prompt_tokens=a.prompt, new_tokens=a.new, model=cfg.tiny, actor=info, rows=rows)
    Path(a.results).parent.mkdir(parents=True, exist_ok=True)
    Path(a.results).write_text(json.dumps(res, indent=1) + '\n')


if __name__ == '__main__': main()
