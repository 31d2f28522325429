"""FSDP's sharding arithmetic (cuda_agent_wb.train.sharding) against torch's FSDP itself: a tiny decoder wrapped as
examples/accelerate/fsdp.yaml wraps it (one unit per decoder layer, FULL_SHARD), in 3 CPU processes over gloo (3 does not divide the units' sizes: the padding counts);
each process must hold exactly `local_elements` parameter elements."""
import functools, os, socket
import torch
import torch.multiprocessing as mp


def _free_port() -> int:
    with socket.socket() as s: s.bind(('127.0.0.1', 0)); return s.getsockname()[1]


def _tiny():
    from transformers import AutoModelForCausalLM
    from cuda_agent_wb.train.models import char_tokenizer, tiny_config
    torch.manual_seed(0)
    return AutoModelForCausalLM.from_config(tiny_config(char_tokenizer(), hidden=48, layers=3, heads=4, kv_heads=2))


def _shard_in_process(rank: int, world: int, port: int, out):
    import torch.distributed as dist
    from torch.distributed.fsdp import FullyShardedDataParallel as FSDP, ShardingStrategy
    from torch.distributed.fsdp.wrap import transformer_auto_wrap_policy
    torch.set_num_threads(1)
    dist.init_process_group('gloo', init_method=f'tcp://127.0.0.1:{port}', rank=rank, world_size=world)
    try:
        m = _tiny()
        layers = {type(mod) for mod in m.modules() if type(mod).__name__ in m._no_split_modules}
        f = FSDP(m, auto_wrap_policy=functools.partial(transformer_auto_wrap_policy, transformer_layer_cls=layers),
                 sharding_strategy=ShardingStrategy.FULL_SHARD, use_orig_params=True, device_id=torch.device('cpu'))
        out[rank] = sum(u._handle.flat_param.numel() for u in FSDP.fsdp_modules(f) if u._handle is not None)
    finally: dist.destroy_process_group()


def test_each_process_holds_what_the_arithmetic_says(world=3):
    from cuda_agent_wb.train.sharding import local_elements
    out = mp.Manager().dict()
    mp.spawn(_shard_in_process, args=(world, _free_port(), out), nprocs=world, join=True)
    expected = local_elements(_tiny(), world)
    assert dict(out) == {r: expected for r in range(world)}
    assert expected * world >= sum(p.numel() for p in _tiny().parameters())   # padding only adds
