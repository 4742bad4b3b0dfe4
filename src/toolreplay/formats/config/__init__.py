"""The ``check`` configuration: ``.toolreplay.yml``, read strictly, every error with its line.

Paths and globs in the file are relative to the file's own directory. Every
key is checked: an unknown key, a value of the wrong type, a file that does
not exist or a glob that matches nothing is an :class:`InputError` naming the
config file and the line, since a typo that silently checks nothing would pass
CI for the wrong reason. A replay's settings are a
:class:`~toolreplay.settings.ReplaySettings`, refused with the same words as
``replay``'s options. With no config file, :func:`~.read.discover` finds the
recordings under a directory and the defaults apply.

:mod:`.model` holds what a config says, :mod:`.read` reads the file's top level (and discovers a directory),
:mod:`.entries` its replay, compare, scope and tools entries, and :mod:`.values` the checks every value passes.
"""
