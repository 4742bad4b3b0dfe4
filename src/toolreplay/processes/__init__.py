"""The programs toolreplay runs for itself (git, ssh-keygen), check --isolate and --isolate-user, and the relay a
program runs under there.
"""
