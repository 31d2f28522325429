"""The scale curve of issue 51 from its runs: the evaluation service (bench/service_gpu.py, one results file per GPU count,
both presets) and training (bench/train_multi_gpu.py --counts, one summary), merged into scale_gpus.json with each
count's speedup over one GPU and where the time goes.

    python3 bench/service_gpu.py --out $OUT/service_scale_1.json --presets cpu,gpu --configs 0x2 --queue cpu=60,gpu=60 --no-latency
    python3 bench/service_gpu.py --out $OUT/service_scale_2.json --presets cpu,gpu --configs 0,1x2 --queue cpu=120,gpu=120 --no-latency
    python3 bench/service_gpu.py --out $OUT/service_scale_4.json --presets cpu,gpu --configs 0,1,2,3x2 --queue cpu=240,gpu=240 --no-latency
    python3 bench/train_multi_gpu.py --counts 1,2,4 --preset gpu-100m-replay --steps 2 --results $OUT/train_scale.json
    python3 bench/scale_gpus.py --service $OUT/service_scale_*.json --train $OUT/train_scale.json --out bench/results/scale_gpus.json

`service_speedup[n]`: candidates per hour on n GPUs over one GPU's, the lower of the two presets (`service_speedup_by_preset`
has both); `train_speedup[n]`: episodes per second of the steady steps (every step after the first, which builds every kernel
and compiles every baseline) over one GPU's; `train_speedup_all_steps` counts the first step too."""
import argparse, json
from pathlib import Path


def service_points(files: list) -> dict:
    "{preset: {gpus: run}} from service_gpu.py results (the best workers-per-GPU layout where a count was run with several)."
    pts = {}
    for f in files:
        d = json.loads(Path(f).read_text())
        for r in d['runs']:
            n = len(r['gpus'].split(','))
            best = pts.setdefault(r['preset'], {}).get(n)
            if best is None or r['candidates_per_hour'] > best['candidates_per_hour']: pts[r['preset']][n] = dict(r, source=str(f), command=d['command'], commit=d.get('commit'))
    return pts


def where_time_goes(r: dict) -> dict:
    "A service run's bottleneck signs: host CPU, GPU use, workers' busy share, build waits, the lock wait, the cycle's stages."
    ws = list((r.get('workers') or {}).values())
    return dict(host_cpu_busy_mean=r['host']['cpu_busy_mean'], host_cpu_busy_p90=r['host']['cpu_busy_p90'], gpu_util_mean=r['host']['gpu_util_mean'],
                worker_busy_share_mean=round(sum(w['busy_share'] for w in ws) / len(ws), 3) if ws else None,
                build_waits_over_0_5_s=r['build_waits']['over_0_5_s'], breakdown_mean_s=r['breakdown_mean'])


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument('--service', nargs='+', required=True, help='service_gpu.py results files (any counts, any presets)')
    ap.add_argument('--train', required=True, help="train_multi_gpu.py --counts summary")
    ap.add_argument('--out', required=True)
    a = ap.parse_args()
    pts, train = service_points(a.service), json.loads(Path(a.train).read_text())
    by_preset = {p: {str(n): round(r['candidates_per_hour'] / runs[1]['candidates_per_hour'], 3) for n, r in sorted(runs.items()) if n > 1 and 1 in runs}
                 for p, runs in pts.items()}
    counts = sorted({n for s in by_preset.values() for n in s}, key=int)
    any_run = next(r for runs in pts.values() for r in runs.values())
    res = dict(device=any_run['env']['device'], driver=any_run['env'].get('driver'), torch=any_run['env']['torch'], cuda=any_run['env']['cuda'],
               service_speedup={n: min(s[n] for s in by_preset.values() if n in s) for n in counts}, service_speedup_by_preset=by_preset,
               train_speedup=train.get('steady_speedup'), train_speedup_all_steps=train.get('speedup'),
               evaluations_per_step={str(r['gpus']): r.get('evaluations_per_step') for r in train['runs']},
               service={p: {str(n): dict(candidates_per_hour=r['candidates_per_hour'], candidates_per_gpu_hour=r['candidates_per_gpu_hour'],
                                         workers_per_gpu=r['workers_per_gpu'], queue=r['queue'], queue_s=r['queue_s'], queue_correct=r['queue_correct'],
                                         where_time_goes=where_time_goes(r), commit=r['commit'], command=r['command'])
                            for n, r in sorted(runs.items())} for p, runs in pts.items()},
               train={str(r['gpus']): {k: r.get(k) for k in ('episodes_per_step', 'evaluations_per_step', 'builds_per_step', 'steady_episodes_per_s',
                                                            'episodes_per_s', 'steady_step_s', 'steady_split_s', 'allreduce_s', 'peak_gpu_mem_gb', 'finished', 'command')}
                      for r in train['runs']},
               train_commit=train.get('commit'), train_what=train.get('what'), command=' '.join(['python3', 'bench/scale_gpus.py', *__import__('sys').argv[1:]]))
    Path(a.out).parent.mkdir(parents=True, exist_ok=True); Path(a.out).write_text(json.dumps(res, indent=1) + '\n')
    print(json.dumps({k: res[k] for k in ('service_speedup', 'service_speedup_by_preset', 'train_speedup', 'evaluations_per_step')}, indent=1))


if __name__ == '__main__': main()
