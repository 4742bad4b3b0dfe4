"""The check: planning the analyses of a repository's recordings, running them, merging shards."""
