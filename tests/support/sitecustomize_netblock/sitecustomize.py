"""Imported by Python at start-up when this folder is on PYTHONPATH: blocks non-loopback network in the process.

Loads ../netblock.py by path (this folder is the only one put on the path) and calls its `install()`.
Python skips sitecustomize under `-S` or `-I`.
"""

import importlib.util
import sys
from pathlib import Path

_NAME = "hive_tests_netblock"
_spec = importlib.util.spec_from_file_location(_NAME, Path(__file__).resolve().parent.parent / "netblock.py")
if _spec is not None and _spec.loader is not None:
    _module = importlib.util.module_from_spec(_spec)
    sys.modules[_NAME] = _module
    _spec.loader.exec_module(_module)
    _module.install()
