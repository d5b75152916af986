"""Person records with planted duplicates, from Faker's name and address lists."""

from functools import lru_cache
from numbers import Integral, Real

import numpy as np
from sklearn.utils import Bunch

from ._lazy import _import_optional

_POOL = {"first_name": 3000, "last_name": 3000, "street_address": 30000, "city": 3000}
_LETTERS = np.array(list("abcdefghijklmnopqrstuvwxyz"))
_DATE_STREAM = 20261127  # seeds the dates of birth apart from the records

_DESCR = """\
Generated person records with planted duplicates
================================================

Each record is "first last, street, city", the parts drawn independently
(numpy, seeded) from pools of names and addresses that Faker generates
(en_US, seeded): 3,000 first names, 3,000 last names, 30,000 street
addresses and 3,000 cities. A share of the records are duplicates of an
earlier original, each with one to three changes drawn from: 1-2 typing
errors (a letter replaced, deleted or inserted), first and last name
swapped, the city dropped.

- data: the records.
- entity: the original each record stands for (duplicates share it).
"""


@lru_cache(maxsize=2)
def _pools(seed):
    faker_module = _import_optional("faker", caller="make_person_records")
    faker = faker_module.Faker("en_US")
    faker.seed_instance(seed)
    return {
        field: np.array(sorted({getattr(faker, field)() for _ in range(size)}), dtype=object)
        for field, size in _POOL.items()
    }


def make_person_records(n_records, *, duplicate_share=0.09, random_state=0, as_frame=False):
    """Person records (name, street, city) with planted near duplicates.

    Needs the ``faker`` package (``pip install 'sklearn-ed[datasets]'``).

    Parameters
    ----------
    n_records : int
        Number of records, duplicates included.
    duplicate_share : float, default=0.09
        Share of the records that duplicate an earlier one.
    random_state : int, default=0
        Seed of Faker's lists and of the draws (``None``: fresh draws from
        the lists of seed 0).
    as_frame : bool, default=False
        Also return ``frame``: the records as a pandas DataFrame of columns
        ``first_name``, ``last_name``, ``street_address``, ``city`` (None
        where dropped) and ``date_of_birth`` ("YYYYMMDD"; a duplicate's has a
        digit changed in 10 % of them and is missing in 10 %). ``data`` is
        the same with or without it (the dates are drawn apart).

    Returns
    -------
    data : :class:`~sklearn.utils.Bunch`
        ``data`` (object array of records), ``entity`` (int array: the
        original each record stands for), ``DESCR`` and, with
        ``as_frame=True``, ``frame``.

    Examples
    --------
    >>> from sklearn_ed.datasets import make_person_records
    >>> records = make_person_records(1000, random_state=0)
    >>> len(records.data), len(set(records.entity.tolist())) <= 910
    (1000, True)
    """
    if not isinstance(n_records, Integral) or n_records < 1:
        raise ValueError(f"n_records must be a positive integer, got {n_records!r}.")
    if not isinstance(duplicate_share, Real) or not 0 <= duplicate_share < 1:
        raise ValueError(f"duplicate_share must be in [0, 1), got {duplicate_share!r}.")
    rng = np.random.default_rng(random_state)
    pools = _pools(random_state if isinstance(random_state, Integral) else 0)
    n_duplicates = int(round(n_records * duplicate_share))
    n_originals = n_records - n_duplicates
    parts = {field: rng.choice(pool, n_originals) for field, pool in pools.items()}
    originals = [
        [first, last, street, city]
        for first, last, street, city in zip(*(parts[field] for field in _POOL))
    ]
    entity = np.concatenate([np.arange(n_originals), rng.integers(0, n_originals, n_duplicates)])
    fields = originals + [_duplicate(list(originals[i]), rng) for i in entity[n_originals:]]
    order = rng.permutation(n_records)
    data = np.array([_joined(record) for record in fields], dtype=object)[order]
    bunch = Bunch(data=data, entity=entity[order], DESCR=_DESCR)
    if as_frame:
        bunch.frame = _frame(fields, entity, n_originals, random_state, order)
    return bunch


def _frame(fields, entity, n_originals, random_state, order):
    pd = _import_optional("pandas", caller="make_person_records(as_frame=True)")
    # A stream of its own: the dates do not change the one-string records.
    rng = np.random.default_rng([_DATE_STREAM, random_state if random_state is not None else 0])
    days = rng.integers(0, 365 * 80, n_originals)
    births = np.datetime64("1930-01-01") + days.astype("timedelta64[D]")
    dates = np.array([str(day).replace("-", "") for day in births], dtype=object)[entity]
    for position in range(n_originals, len(entity)):
        dates[position] = _changed_date(dates[position], rng)
    frame = pd.DataFrame(fields, columns=list(_POOL)).replace("", None)
    frame["date_of_birth"] = dates
    return frame.iloc[order].reset_index(drop=True)


def _changed_date(date, rng):
    draw = rng.random()
    if draw < 0.1:
        return None
    if draw < 0.2:
        where = int(rng.integers(0, len(date)))
        return date[:where] + str(rng.integers(0, 10)) + date[where + 1 :]
    return date


def _joined(fields):
    first, last, street, city = fields
    return ", ".join(part for part in (f"{first} {last}", street, city) if part)


def _duplicate(fields, rng):
    changes = rng.choice(["typo", "swap", "drop"], size=rng.integers(1, 4), replace=True)
    for change in changes:
        if change == "swap":
            fields[0], fields[1] = fields[1], fields[0]
        elif change == "drop":
            fields[3] = ""
        else:
            field = rng.integers(0, 3)
            for _ in range(rng.integers(1, 3)):
                fields[field] = _typo(fields[field], rng)
    return fields


def _typo(text, rng):
    where = int(rng.integers(0, len(text) + 1))
    kind = rng.integers(0, 3)
    letter = str(rng.choice(_LETTERS))
    if kind == 0 and where < len(text):
        return text[:where] + letter + text[where + 1 :]
    if kind == 1 and where < len(text):
        return text[:where] + text[where + 1 :]
    return text[:where] + letter + text[where:]
