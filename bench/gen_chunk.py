#!/usr/bin/env python3
"""Does pooled sampling in chunks (`gen_chunk`) speed up rollout-shaped generation? (issue 26: the ppo-gain arms sampled
16-22 tokens/s per episode on 2 x H200, the generator busy 77-89 % of each rollout.)

Episodes are emulated on the training actor (random init, the `gpu-100m-demo` preset's model, static cache): `--episodes`
threads each play `--turns` turns; a turn samples one reply through `ActorPolicy.generate_pooled` (what rollouts call),
then waits a seeded 0.5-3 s as if a tool ran, and the next prompt is the last one plus the reply plus a 200-token
observation. A random-init model has no reason to stop, so `--stop-every` token ids are made stop tokens: a reply ends
with probability about 1/`stop-every` a token (a geometric mix of short and long replies, capped at `max_new_tokens`),
as agent replies mix short tool calls with long files. Each mode plays the same episodes (same seeds; the sampled
lengths differ run to run, the reported tokens say how many).

    python bench/gen_chunk.py                               # on a GPU
    python bench/gen_chunk.py --backend cpu --set tiny='{"hidden": 64, "layers": 2, "heads": 4, "kv_heads": 2}' \\
        --set dtype=float32 --set gen_cache=dynamic --prompt 64 --episodes 3 --turns 2 --max-new 32 --stop-every 8 --chunks 0,8
"""
import argparse, json, random, sys, time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
import torch


def play(pol, prompt: list, turns: int, seed: int, vocab: int) -> dict:
    "One emulated episode: `turns` pooled replies with a tool wait after each; its tokens and seconds."
    rng, toks, t0 = random.Random(seed), 0, time.perf_counter()
    for _ in range(turns):
        reply, _, _ = pol.generate_pooled(prompt)
        toks += len(reply)
        time.sleep(rng.uniform(0.5, 3.0))                                   # a tool's wait
        prompt = prompt + reply + [rng.randrange(10, vocab - 10) for _ in range(200)]
    return dict(tokens=toks, s=time.perf_counter() - t0)


def run_mode(pol, chunk: int, a, vocab: int) -> dict:
    "Every episode once with `gen_chunk=chunk`; wall time, tokens, generator busy time."
    pol.gen_chunk, busy0 = chunk or None, pol.busy_s
    g = torch.Generator().manual_seed(0)
    prompts = [torch.randint(10, vocab - 10, (a.prompt,), generator=g).tolist() for _ in range(a.episodes)]
    torch.manual_seed(0); t0 = time.perf_counter()
    with ThreadPoolExecutor(a.episodes) as ex:
        eps = list(ex.map(lambda i: play(pol, prompts[i], a.turns, i, vocab), range(a.episodes)))
    wall, toks = time.perf_counter() - t0, sum(e['tokens'] for e in eps)
    return dict(gen_chunk=chunk, wall_s=round(wall, 2), tokens=toks, tokens_per_s=round(toks / wall, 1),
                tokens_per_s_per_episode=round(sum(e['tokens'] / e['s'] for e in eps) / len(eps), 1),
                generator_busy_s=round(pol.busy_s - busy0, 2))


def main():
    import faulthandler; faulthandler.enable()
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument('--backend', default='cuda', choices=['cuda', 'cpu'])
    ap.add_argument('--preset', default='gpu-100m-demo')
    ap.add_argument('--set', action='append', default=[], metavar='KEY=VALUE', help='override a TrainConfig field')
    ap.add_argument('--prompt', type=int, default=3000, help="each episode's first prompt, in tokens")
    ap.add_argument('--episodes', type=int, default=16)
    ap.add_argument('--turns', type=int, default=4)
    ap.add_argument('--max-new', type=int, default=None, help="reply cap (default: the preset's max_new_tokens)")
    ap.add_argument('--stop-every', type=int, default=300, help='about one token in this many is a stop token')
    ap.add_argument('--chunks', default='0,256', help='gen_chunk values to compare (0: whole replies)')
    ap.add_argument('--results', default=str(Path(__file__).parent / 'results' / 'gen_chunk.json'))
    a = ap.parse_args()
    try: chunks = [int(x) for x in a.chunks.split(',')]
    except ValueError: raise SystemExit(f"--chunks {a.chunks!r}: give whole numbers, comma-separated, e.g. 0,256") from None
    if min(a.episodes, a.turns, a.prompt, a.stop_every, a.max_new or 1) < 1 or min(chunks) < 0:
        raise SystemExit("--episodes, --turns, --prompt, --stop-every and --max-new must be at least 1, --chunks at least 0")
    if a.backend == 'cuda' and not torch.cuda.is_available(): raise SystemExit("no CUDA device visible: run this on a GPU machine, or --backend cpu")
    from cuda_agent_wb.train import Trainer, make_config, parse_overrides
    cfg = make_config(a.preset, backend=a.backend, out_dir='runs/gen_chunk', stages=[4], resume=False, temperature=1.0, **parse_overrides(a.set))
    tr = Trainer(cfg); pol = tr.policy(); vocab = len(tr.tok)
    if a.max_new: pol.max_new_tokens = a.max_new
    pol.stops = sorted(set(pol.stops) | set(random.Random(1).sample(range(10, vocab - 10), max(1, vocab // a.stop_every))))
    t0 = time.perf_counter()
    for b in (1, 2, 4, 8, 16, 32):                                          # compile each batch size first, untimed
        if b <= a.episodes: pol._generate([[11] * a.prompt] * b, 2)
    res = dict(device=torch.cuda.get_device_name(0) if a.backend == 'cuda' else 'cpu', torch=torch.__version__, command=' '.join(sys.argv),
               preset=a.preset, cache=cfg.gen_cache, episodes=a.episodes, turns=a.turns, prompt=a.prompt, max_new_tokens=pol.max_new_tokens,
               stop_every=a.stop_every, warmup_s=round(time.perf_counter() - t0, 1), modes=[])
    for c in chunks:
        res['modes'].append(run_mode(pol, c, a, vocab)); print(json.dumps(res['modes'][-1]), flush=True)
        Path(a.results).parent.mkdir(parents=True, exist_ok=True); Path(a.results).write_text(json.dumps(res, indent=1) + '\n')
    tr.close()


if __name__ == '__main__':
    main()
    sys.stdout.flush(); sys.stderr.flush()
    import os; os._exit(0)
