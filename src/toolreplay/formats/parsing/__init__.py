"""Reading structured text with the line of every value: the parsers every file format is read through.

Nothing here knows a file format: :mod:`.node` is the checked view of a parsed value, the ``*_text`` modules
parse JSON, YAML and TOML into one, :mod:`.jsonl` reads JSON Lines, :mod:`.module_data` a Python module's data.
"""
