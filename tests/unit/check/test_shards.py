"""Sharding: every unit in exactly one shard, the heavy ones spread, the same split every time."""

from __future__ import annotations

from pathlib import Path

import pytest

from toolreplay.check.plan import Recording, Unit, shard_of, unit_weight
from toolreplay.core.outcome import Analysis, parse_shard
from toolreplay.formats.kinds import Kind


@pytest.fixture
def units(tmp_path: Path) -> list[Unit]:
    made: list[Unit] = []
    for number, size in enumerate([9000, 100, 100, 100, 8000, 100, 100, 7000, 100, 100, 6000, 100]):
        path = tmp_path / f"f{number:02d}.jsonl"
        path.write_bytes(b"x" * size)
        made.append(Unit(f"audit {path.name}", Analysis.AUDIT, Recording(str(path), Kind.TRANSCRIPT)))
        made.append(Unit(f"verify {path.name}", Analysis.VERIFY, Recording(str(path), Kind.SEALED_TRANSCRIPT)))
    return made


@pytest.mark.parametrize("count", [1, 2, 3, 4, 7])
def test_shards_partition_the_units_in_report_order(units: list[Unit], count: int) -> None:
    shards = [shard_of(units, (k, count)) for k in range(1, count + 1)]
    keys = [unit.key for shard in shards for unit in shard]
    assert sorted(keys) == sorted(unit.key for unit in units)
    for shard in shards:
        assert shard == [unit for unit in units if unit in shard]
    assert shards == [shard_of(units, (k, count)) for k in range(1, count + 1)]


def test_the_heavy_units_go_to_different_shards(units: list[Unit]) -> None:
    shards = [shard_of(units, (k, 4)) for k in range(1, 5)]
    heavy = [
        sum(1 for unit in shard if unit.analysis is Analysis.AUDIT and unit_weight(unit) > 1000) for shard in shards
    ]
    assert heavy == [1, 1, 1, 1]
    loads = [sum(unit_weight(unit) for unit in shard) for shard in shards]
    assert max(loads) / (sum(loads) / 4) < 1.2


def test_a_shard_is_k_of_n() -> None:
    assert parse_shard("2/4") == (2, 4)
