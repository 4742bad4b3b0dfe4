"""The pure analyses of recorded calls: classification and argument matching, the audit, the scope, the diff and
its alignment, and a starter rules file.
"""
