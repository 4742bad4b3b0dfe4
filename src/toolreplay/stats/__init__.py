"""The exact statistics of the noise verdicts: Fisher's and Boschloo's tests, intervals, the multiple-testing
adjustment, the design of rounds, and the power a design has.
"""
