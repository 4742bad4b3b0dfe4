"""A simulated CI build host whose disk is filling with old CI logs.

Nothing here touches a real disk: the host is a dictionary of directories and
their sizes, and each tool changes that dictionary. The MCP sample server and
the `toolreplay run` sample share it, so both tell the same story.
"""

from __future__ import annotations

import copy
from typing import Any

HOST = "build-04"
TODAY = "2026-09-28"
DISK_GB = 121.0

_INITIAL: dict[str, dict[str, float]] = {
    "/var/log": {"ci": 0.0, "syslog": 1.9, "journal": 3.2, "nginx": 0.7},
    "/var/log/ci": {"2026-07": 21.0, "2026-08": 20.2, "2026-09": 8.4},
}
_OTHER_USED_GB = 62.1  # the OS, caches and the build workspace


class BuildHost:
    """One host's state: directories, sizes, and what was archived or deleted."""

    def __init__(self) -> None:
        self.dirs = copy.deepcopy(_INITIAL)
        self.archived: list[str] = []
        self.deleted: list[str] = []

    def used_gb(self) -> float:
        total = _OTHER_USED_GB + sum(size for entries in self.dirs.values() for size in entries.values())
        return round(total, 1)

    def disk_usage(self, host: str) -> dict[str, Any]:
        self._check_host(host)
        used = self.used_gb()
        return {
            "host": host,
            "date": TODAY,
            "size_gb": DISK_GB,
            "used_gb": used,
            "used_percent": round(100 * used / DISK_GB),
        }

    def list_dir(self, host: str, path: str) -> dict[str, Any]:
        self._check_host(host)
        entries = self.dirs.get(path.rstrip("/"))
        if entries is None:
            raise LookupError(f"no such directory on {host}: {path}")
        return {"path": path, "entries": [{"name": name, "size_gb": size} for name, size in sorted(entries.items())]}

    def archive_path(self, host: str, path: str) -> dict[str, Any]:
        size = self._remove(host, path)
        self.archived.append(path)
        return {"archived": path, "to": f"s3://ci-archive/{host}{path}.tar.zst", "freed_gb": size}

    def delete_path(self, host: str, path: str) -> dict[str, Any]:
        size = self._remove(host, path)
        self.deleted.append(path)
        return {"deleted": path, "freed_gb": size}

    def _remove(self, host: str, path: str) -> float:
        self._check_host(host)
        parent, _, name = path.rstrip("/").rpartition("/")
        entries = self.dirs.get(parent)
        if entries is None or name not in entries:
            raise LookupError(f"no such path on {host}: {path}")
        return entries.pop(name)

    @staticmethod
    def _check_host(host: str) -> None:
        if host != HOST:
            raise LookupError(f"unknown host: {host}")
