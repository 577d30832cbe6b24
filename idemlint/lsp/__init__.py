"""``idemlint server``: a Language Server over stdio, built on pygls.

A thin front end, like the CLI: the open files are analysed by
:func:`idemlint.engine.lint_paths` as one project per workspace folder,
with the same configuration and cache as ``idemlint check`` there, and
the editor's unsaved buffers read from memory (the engine's overlay).

- :mod:`idemlint.lsp.text`: lines, positions and URIs between idemlint and LSP;
- :mod:`idemlint.lsp.analysis`: which buffers belong to which project, and
  one engine run per project;
- :mod:`idemlint.lsp.convert`: findings as diagnostics, hovers;
- :mod:`idemlint.lsp.actions`: fixes and ``# noqa`` as code actions;
- :mod:`idemlint.lsp.server`: the protocol (pygls), debouncing, publishing.

Needs the ``lsp`` extra (``pip install 'idemlint[lsp]'``); nothing else in
idemlint imports this package.
"""
