"""Named alphabets, and the check that every record uses only its letters."""

ALPHABETS = {
    "dna": "ACGT",
    "dna_n": "ACGTN",
    "protein": "ACDEFGHIKLMNPQRSTVWY",
    "protein_ext": "ACDEFGHIKLMNPQRSTVWYBJOUXZ*",
}


def alphabet_letters(alphabet):
    """The set of letters of a named alphabet, or of a string of letters."""
    if not isinstance(alphabet, str) or not alphabet:
        raise ValueError(
            f"alphabet must be one of {sorted(ALPHABETS)} or a non-empty string of "
            f"the allowed letters, got {alphabet!r}."
        )
    return frozenset(ALPHABETS.get(alphabet, alphabet))


def describe(alphabet):
    """``'dna (ACGT)'`` for a named alphabet, the letters themselves otherwise."""
    letters = ALPHABETS.get(alphabet)
    return f"{alphabet} ({letters})" if letters else repr("".join(sorted(set(alphabet))))


def first_foreign_letter(sequences, letters):
    """``(record, position, letter)`` of the first letter not in ``letters``, or None."""
    for record, sequence in enumerate(sequences):
        if not letters.issuperset(sequence):
            position = next(i for i, letter in enumerate(sequence) if letter not in letters)
            return record, position, sequence[position]
    return None


def infer_alphabet(sequences):
    """The smallest named alphabet holding every letter, or None (plain text)."""
    used = set().union(*map(set, sequences)) if len(sequences) else set()
    for name in ("dna", "dna_n", "protein", "protein_ext"):
        if used <= set(ALPHABETS[name]):
            return name
    return None
