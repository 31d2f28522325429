"""What the resumable training benchmarks (train_demo.py, train_ppo_gain.py) share: the run's calls file
(`calls.jsonl`, one {start, last} per call of the script, so minutes add up over resumed calls) and the fine-tuning
stage at a glance, from its metrics."""
import json
from pathlib import Path


def read_calls(calls: Path) -> list:
    "The run's calls so far, one {start, last} per call (empty before the first)."
    return [json.loads(l) for l in calls.read_text().splitlines() if l.strip()] if calls.is_file() else []


def call_minutes(calls: Path) -> float:
    "Minutes summed over every call of the run (each from its start to its last record)."
    return round(sum(r['last'] - r['start'] for r in read_calls(calls)) / 60, 2)


def touch_call(calls: Path, start: float, last: float):
    "Record this call's start and latest time (the line of this call is rewritten in place)."
    rows = [r for r in read_calls(calls) if r['start'] != start] + [dict(start=start, last=last)]
    calls.parent.mkdir(parents=True, exist_ok=True)
    calls.write_text(''.join(json.dumps(r) + '\n' for r in rows))


def first_start(calls: Path) -> float|None:
    "When the run's first call started (seconds since the epoch), or None before any call is recorded."
    return min((r['start'] for r in read_calls(calls)), default=None)


def stage_ends(m, calls: Path) -> dict:
    "Seconds from the run's first call to each stage's last record (gaps between resumed calls included)."
    if (t0 := first_start(calls)) is None or not len(m) or 'time' not in m: return {}
    return {str(s): round(float(g['time'].max()) - t0, 1) for s, g in m.groupby('stage', sort=False)}


def fine_tuning(m) -> dict:
    "Stage 2 of a metrics frame (`train.read_metrics`): the replay filter's counts, SFT steps and first / last loss."
    from cuda_agent_wb.train import STAGES
    rft = m[m['stage'] == STAGES[2]] if len(m) else m
    sft = rft[rft['sft_loss'].notna()] if 'sft_loss' in rft else rft.iloc[:0]
    filt = rft[rft['phase'] == 'filter'] if 'phase' in rft else rft.iloc[:0]
    last = lambda k: filt[k].iloc[-1] if len(filt) and k in filt and filt[k].iloc[-1] == filt[k].iloc[-1] else None
    count = lambda k: None if last(k) is None else int(last(k))              # pandas reads counts as floats
    return dict(pool=count('pool'), kept=count('kept'), reward_mean=last('reward_mean'), pass_rate=last('pass_rate'), sft_steps=len(sft),
                sft_loss_first=float(sft['sft_loss'].iloc[0]) if len(sft) else None, sft_loss_last=float(sft['sft_loss'].iloc[-1]) if len(sft) else None)
