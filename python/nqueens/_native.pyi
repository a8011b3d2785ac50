"""Type stub of the compiled module ``nqueens._native`` (python/src/lib.rs).

The public, documented API is the package ``nqueens`` (``__init__.py``), which calls these
functions; they are not meant to be called directly.
"""

from os import PathLike
from typing import Any, List, Optional, Sequence, Tuple, Union

import numpy as np

# status, solution, certificate (JSON), stats (JSON), seed, reason
_Done = Tuple[str, Optional[np.ndarray], Optional[str], str, int, Optional[str]]

def complete(
    q: Any,
    seed: Optional[int],
    time_limit_s: Optional[float],
    threads: Optional[int],
    zero_based: bool,
) -> _Done: ...
def complete_many(
    boards: Sequence[Any],
    seed: Optional[int],
    time_limit_s: Optional[float],
    threads: Optional[int],
    zero_based: bool,
) -> List[_Done]: ...
def verify(
    q: Any,
    base: Any,
    require_complete: bool,
    zero_based: bool,
    var: Optional[str],
) -> Tuple[str, Optional[str]]: ...
def read(
    path: Union[str, PathLike[str]],
    var: Optional[str],
    diags: Optional[int],
    zero_based: bool,
    check: bool,
) -> Tuple[int, Optional[np.ndarray], Optional[Tuple[int, int, int, int, int]]]: ...
def write(
    path: Union[str, PathLike[str]],
    q: Any,
    format: Optional[str],
    zero_based: bool,
) -> None: ...
def count(
    n: int,
    piece_name: str,
    kind_name: str,
    distinct: bool,
    place: Sequence[Tuple[int, int]],
    threads: Optional[int],
) -> Tuple[bytes, Optional[bytes]]: ...
def generate_solution(
    n: int, source: str, a: int, seed: Optional[int], zero_based: bool
) -> np.ndarray: ...
def generate_composition(
    solution: Any,
    clear: str,
    k: Optional[int],
    free_count: Optional[int],
    free_fraction: Optional[float],
    at: Optional[int],
    direction: str,
    moves: int,
    seed: Optional[int],
    zero_based: bool,
) -> np.ndarray: ...
def _rows_address(q: Any, zero_based: bool = False) -> int: ...
def version() -> str: ...
