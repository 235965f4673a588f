"""What every function that ``lookalike.ray`` runs in a Ray task does first (``_in_task``),
apart from the modules that use it so that neither imports the other for it."""

from __future__ import annotations

import functools
import inspect
import math
import os
from typing import Any, Callable, Iterator, TypeVar, cast

F = TypeVar("F", bound=Callable[..., Any])

#: The least seconds between two progress lines while a stage's tasks run, in the job
#: (``lookalike.ray``) and in the reader (``lookalike.ray_read``).
PROGRESS_SECONDS = 10.0


def _task_threads() -> None:
    """In a Ray task, sizes rayon's pool (the native kernels' and readers' threads) to the CPUs
    Ray gave the task, as Ray sets ``OMP_NUM_THREADS``: a task holds one CPU, and a pool of every
    core in each of a node's concurrent tasks would run cores × cores threads. Rayon builds its
    pool once per process, from ``RAYON_NUM_THREADS``, at its first use: so this takes effect
    in a worker process whose first rayon use is a lookalike task, and never overrides a
    ``RAYON_NUM_THREADS`` the user set (``runtime_env={"env_vars": ...}``). Nothing in the
    driver."""
    if "RAYON_NUM_THREADS" in os.environ:
        return
    import ray

    context = ray.get_runtime_context()
    if context.get_task_id() is None:
        return
    cpus = context.get_assigned_resources().get("CPU", 1)
    os.environ["RAYON_NUM_THREADS"] = str(max(1, math.ceil(cpus)))


def _in_task(fn: F) -> F:
    """``fn``, a function Ray runs as a task or ``map_batches`` calls, with ``_task_threads``
    first (a generator stays a generator: Ray's streaming tasks need one)."""
    if inspect.isgeneratorfunction(fn):

        @functools.wraps(fn)
        def each(*args: Any, **kwargs: Any) -> Iterator[Any]:
            _task_threads()
            yield from fn(*args, **kwargs)

        return cast(F, each)

    @functools.wraps(fn)
    def run(*args: Any, **kwargs: Any) -> Any:
        _task_threads()
        return fn(*args, **kwargs)

    return cast(F, run)

