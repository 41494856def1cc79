__version__ = "0.1.0"

from .estimator import IKD

__all__ = ["IKD", "compare", "plot_comparison"]

_LAZY = {"compare": "comparison", "plot_comparison": "comparison", "anndata": "anndata", "comparison": "comparison"}


def __getattr__(name):
    "`ikd.compare`, `ikd.plot_comparison` and `ikd.anndata` are imported on first use: they need pandas or anndata."
    if name not in _LAZY: raise AttributeError(f"module 'ikd' has no attribute {name!r}")
    import importlib
    module = importlib.import_module(f".{_LAZY[name]}", __name__)
    return module if name == _LAZY[name] else getattr(module, name)


def __dir__(): return sorted([*globals(), *_LAZY])
