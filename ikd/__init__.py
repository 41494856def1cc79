__version__ = "0.1.0"

from .estimator import IKD

__all__ = ["IKD"]
