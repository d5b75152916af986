"""Matplotlib style of the gallery: fonts legible at 100 % zoom.

Figures up to 11 inches wide are shown in a ~840 px column; 14 pt text stays
above 10 pt on screen after that scaling.
"""

import matplotlib

STYLE = {
    "font.size": 14,
    "axes.titlesize": 14,
    "axes.labelsize": 14,
    "legend.fontsize": 13,
    "xtick.labelsize": 13,
    "ytick.labelsize": 13,
    "figure.dpi": 100,
    # Room for every label: no clipped axis titles.
    "figure.autolayout": True,
}


def reset_matplotlib(gallery_conf, fname):
    """sphinx-gallery reset hook: defaults, then the gallery style."""
    matplotlib.rcdefaults()
    matplotlib.rcParams.update(STYLE)
