"""Checks shared by the engines' decoders of client data (plain Python, imported at run time)."""


def int_in(value, lo, hi, field):
    """``value`` if it is a whole number in [lo, hi]; else ValueError naming ``field``."""
    if isinstance(value, bool) or not isinstance(value, int) or not lo <= value <= hi:
        raise ValueError(f"{field}: must be a whole number from {lo} to {hi}, got {value!r}")
    return value
