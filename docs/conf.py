"""Sphinx configuration of kernlearn's documentation (build: ``python -m sphinx -W docs docs/_build``)."""

from importlib import metadata

project = "kernlearn"
author = "kernlearn developers"
try:
    release = metadata.version("kernlearn")
except metadata.PackageNotFoundError:  # a source tree on PYTHONPATH
    release = "0+unknown"

extensions = [
    "sphinx.ext.autodoc",
    "sphinx.ext.autosummary",
    "sphinx.ext.mathjax",
    "numpydoc",
    "myst_parser",
    "sphinx_gallery.gen_gallery",
]

autosummary_generate = True
# scikit-learn attaches set_{fit,predict,...}_request to every estimator class; their docstrings
# point into scikit-learn's own docs (glossary, labels) and say nothing about kernlearn.
_METADATA_REQUESTS = ("fit", "partial_fit", "predict", "predict_proba", "score", "transform", "decision_function")
autodoc_default_options = {
    "members": True,
    "inherited-members": False,
    "exclude-members": ", ".join(f"set_{method}_request" for method in _METADATA_REQUESTS),
}
# The API pages list each class's methods once (numpydoc's own table, not autosummary's too).
numpydoc_show_class_members = False
# Markdown: the reproduction and benchmark tables are bench/results/*.md, included as they are.
myst_enable_extensions = ["dollarmath"]
# The included results files keep their own heading levels, which skip levels inside this site.
suppress_warnings = ["myst.header"]
source_suffix = {".rst": "restructuredtext", ".md": "markdown"}

sphinx_gallery_conf = {
    "examples_dirs": "../examples",
    "gallery_dirs": "auto_examples",
    "filename_pattern": r"/plot_",
    "download_all_examples": False,
    "remove_config_comments": True,
}

version = release
html_theme = "pydata_sphinx_theme"
html_title = f"kernlearn {release}"
exclude_patterns = ["_build", "auto_examples/*.ipynb", "auto_examples/*.py", "auto_examples/*.zip"]
