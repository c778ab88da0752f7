"""nbgrader's gradebook API without the Jupyter server that nbgrader's package imports first.

``import nbgrader.api`` runs ``nbgrader/__init__.py``, which imports nbgrader's four Jupyter
server extensions (jupyter_server, tornado handlers, prometheus...): about 0.3 s of CPU that a
batch spends while its submissions are being graded, only to write the gradebook, which needs
nothing but the ORM in ``nbgrader.api``.

``light_import()`` registers the ``nbgrader`` package with its ``__version__`` and without
running its ``__init__``; submodules import as usual. The first time anything asks the package
for another name (nbgrader's apps, Jupyter looking for the server extensions), the real
``__init__`` runs in the same module object, which then is what a plain ``import nbgrader``
makes. A process that imported nbgrader already keeps its module.
"""

from __future__ import annotations

import importlib
import importlib.util
import sys
import threading
from types import ModuleType

PACKAGE = "nbgrader"
_lock = threading.RLock()


def light_import() -> ModuleType:
    """The ``nbgrader`` package module, registered without running its ``__init__`` unless
    it was imported before."""
    with _lock:
        if PACKAGE in sys.modules:
            return sys.modules[PACKAGE]
        spec = importlib.util.find_spec(PACKAGE)
        if spec is None or spec.loader is None:
            raise ModuleNotFoundError(f"No module named {PACKAGE!r}", name=PACKAGE)
        package = importlib.util.module_from_spec(spec)
        package.__getattr__ = _on_demand(package)  # type: ignore[method-assign]
        sys.modules[PACKAGE] = package
        try:
            package.__version__ = importlib.import_module(f"{PACKAGE}._version").__version__
        except BaseException:
            del sys.modules[PACKAGE]
            raise
        return package


def is_complete(package: ModuleType) -> bool:
    """Whether the package's ``__init__`` has run (always, unless ``light_import`` made it)."""
    return "__getattr__" not in vars(package)


def _on_demand(package: ModuleType):  # noqa: ANN202 - a module-level __getattr__
    def __getattr__(name: str) -> object:  # noqa: N807 - PEP 562
        if name.startswith("__") and name.endswith("__"):
            raise AttributeError(name)  # what the import system probes for, as with any module
        if importlib.util.find_spec(f"{PACKAGE}.{name}") is not None:
            return importlib.import_module(f"{PACKAGE}.{name}")  # `from nbgrader import utils`
        _complete(package)
        try:
            return vars(package)[name]
        except KeyError:
            raise AttributeError(f"module {PACKAGE!r} has no attribute {name!r}") from None

    return __getattr__


def _complete(package: ModuleType) -> None:
    """Run the real ``__init__`` in ``package``, once."""
    with _lock:
        if is_complete(package):
            return
        hook = vars(package).pop("__getattr__")
        try:
            package.__spec__.loader.exec_module(package)
        except BaseException:
            package.__getattr__ = hook  # type: ignore[method-assign]
            raise
