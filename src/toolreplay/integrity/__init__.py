"""Whether a recording is what was recorded: the SHA-256 hash chain (seal, verify) and signatures over a sealed
file's head.
"""
