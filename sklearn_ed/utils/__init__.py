"""Building blocks shared by the subpackages: string validation and encoding,
q-gram counting kernels, item indexing and the plain-file persistence.

This is the bottom layer: it imports nothing else from sklearn-ed. Its names
are the developer interface between subpackages, not part of the user API
(which is ``sklearn_ed.__all__`` and each public subpackage's ``__all__``);
they may change between releases.
"""

from ._hash_order import hash_order
from ._invariants import SavedStateError, saved_array, saved_int, saved_seconds
from ._logging import log_progress
from ._memory import available_memory
from ._optional import NEURAL_EXTRA, PANDAS_EXTRA, require_neural, require_pandas
from ._persistence import load, read_json, save
from ._processors import PROCESSORS, apply_processor
from ._qgrams import (
    HASH_MULTIPLIER,
    CodeTable,
    drop_unseen,
    qgram_code_base,
    qgram_counts,
    qgram_profiles,
    qgram_sample,
    tagged_hashes,
)
from ._saved_classes import defer_saved_classes, older_layout_defaults, saved_class
from ._segments import segments_absorbed
from ._state_lock import reads_fitted_state, writes_fitted_state
from ._strings import (
    FIRST_CHAR_SYMBOL,
    PAD_SYMBOL,
    UNKNOWN_SYMBOL,
    Alphabet,
    check_items,
    check_string_lengths,
    check_strings,
    resolve_max_length,
    saved_characters,
    to_code_points,
)
from ._threads import default_backend, iter_in_threads, map_in_threads, pair_call_workers
from ._validation import (
    check_distance_matrices,
    check_numeric_objects,
    pair_order,
    run_starts,
    sorted_unique,
    take_items,
)
