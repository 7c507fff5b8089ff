#!/usr/bin/env python3
"""Reads a Prometheus text exposition on stdin with the Prometheus project's own parser
(python3-prometheus-client) and prints it as JSON: {"name": {"type": ..., "samples": [
{"name": ..., "labels": {...}, "value": ...}]}}. A text the parser refuses exits 1 with its error,
so a malformed /metrics fails the test that asked."""
import json
import sys

from prometheus_client.parser import text_string_to_metric_families


def main() -> int:
    text = sys.stdin.read()
    out = {}
    try:
        for family in text_string_to_metric_families(text):
            out[family.name] = {
                "type": family.type,
                "samples": [{"name": s.name, "labels": dict(s.labels), "value": s.value} for s in family.samples],
            }
    except Exception as e:  # the parser's own error, whatever its class
        print(f"read_metrics: {e}", file=sys.stderr)
        return 1
    json.dump(out, sys.stdout)
    return 0


if __name__ == "__main__":
    sys.exit(main())
