__version__ = "0.0.1"

# The env server's client, importable from the package (`from cuda_agent_wb import RemoteKernelEnvs`), loaded on first
# use: `import cuda_agent_wb` stays light (the CLI and the torch-free client import it). See nbs/09a_env_server.ipynb.
_LAZY = {'RemoteKernelEnvs': 'env_server', 'RemoteKernelEnv': 'env_server', 'KernelEnvClient': 'env_server',
         'EnvServerError': 'env_server', 'trl_environment': 'adapters'}

def __getattr__(name):
    if name in _LAZY:
        from importlib import import_module
        return getattr(import_module(f"{__name__}.{_LAZY[name]}"), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
