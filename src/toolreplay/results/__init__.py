"""Each analysis's result as the records every report is drawn from (core.outcome): where its findings point,
its calls, runs and diff as a page draws them. What every command that reports reaches, the check and the single
commands alike.
"""
