"""The vocabulary every part shares: records, the session model, findings and verdicts, canonical JSON, errors,
and the words and escaping every report uses.
"""
