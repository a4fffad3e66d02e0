#!/usr/bin/python3
"""Checks a vtick-probe profile against probe/profile.schema.json and for basic sanity
(latencies positive and ordered, rates finite): never against expected values, which
depend on the machine. usage: scripts/check-profile.py SCHEMA PROFILE; exit 0 if it holds."""
import json
import math
import sys

import jsonschema  # Debian: python3-jsonschema


def stats_blocks(node, path=""):
    if isinstance(node, dict):
        if node.get("unit") == "ns" and "p50" in node:
            yield path, node
        for k, v in node.items():
            yield from stats_blocks(v, f"{path}.{k}")
    elif isinstance(node, list):
        for i, v in enumerate(node):
            yield from stats_blocks(v, f"{path}[{i}]")


def main():
    if len(sys.argv) != 3:
        print("usage: check-profile.py SCHEMA.json PROFILE.json", file=sys.stderr)
        return 2
    schema_path, profile_path = sys.argv[1], sys.argv[2]
    with open(schema_path) as f:
        schema = json.load(f)
    with open(profile_path) as f:
        profile = json.load(f)
    jsonschema.Draft202012Validator.check_schema(schema)
    errors = sorted(jsonschema.Draft202012Validator(schema).iter_errors(profile), key=lambda e: list(e.path))
    problems = [f"{'/'.join(map(str, e.path)) or '(top)'}: {e.message}" for e in errors]
    n = 0
    for path, s in stats_blocks(profile.get("figures", {})):
        n += 1
        vals = [s[k] for k in ("min", "p10", "p50", "p90", "p99", "max")]
        if any(v is None or not math.isfinite(v) for v in vals):
            problems.append(f"{path}: a percentile is not a finite number")
        elif vals != sorted(vals):
            problems.append(f"{path}: percentiles out of order {vals}")
        elif "overshoot" not in path and vals[0] <= 0:
            problems.append(f"{path}: a latency or cost <= 0 ({vals[0]})")
    if n == 0:
        problems.append("figures: no measured statistics at all")
    for p in problems:
        print(f"{profile_path}: {p}", file=sys.stderr)
    print(f"{profile_path}: {'ok' if not problems else 'INVALID'} ({n} statistics checked)")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
