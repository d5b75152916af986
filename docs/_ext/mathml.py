"""Math as MathML, rendered at build time: the pages need no script (offline).

Chromium, Firefox and Safari draw MathML Core natively; latex2mathml turns
the TeX of ``:math:`` and ``.. math::`` into it.
"""

from docutils import nodes
from latex2mathml.converter import convert


def _visit_inline(translator, node):
    translator.body.append(convert(node.astext()))
    raise nodes.SkipNode


def _visit_block(translator, node):
    latex = node.astext()
    translator.body.append(f'<div class="math mathml">{convert(latex, display="block")}</div>')
    raise nodes.SkipNode


def setup(app):
    app.add_html_math_renderer("mathml", (_visit_inline, None), (_visit_block, None))
    return {"parallel_read_safe": True, "parallel_write_safe": True}
