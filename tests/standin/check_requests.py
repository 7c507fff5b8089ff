#!/usr/bin/env python3
"""Checks requests the engine sent to the runtime against the OpenSandbox OpenAPI specs.

Input: lines "ISOLATION-STANDIN-REQUEST {json}" as the offline stand-ins print them (other lines
are skipped), each {api: lifecycle|execd, method, path, query, headers, body?}. Every request must
name an operation of its spec, carry its required parameters with valid values, the API key
header where the spec demands one, and a JSON body valid against the operation's schema
(JSON Schema 2020-12, as OpenAPI 3.1 defines it; validated by python3-jsonschema).

  check_requests.py SPEC_DIR LOG [--min N]   exit 0 when every request is valid (and >= N were seen)
  check_requests.py SPEC_DIR --self-test      the checker's own cases (tests/data/opensandbox/requests-*.jsonl)
"""
import json
import re
import sys
from pathlib import Path

import jsonschema
import yaml

PREFIX = "ISOLATION-STANDIN-REQUEST "
SPECS = {"lifecycle": ("sandbox-lifecycle.yml", "/v1"), "execd": ("execd-api.yaml", "")}


def load_specs(spec_dir):
    specs = {}
    for api, (name, base) in SPECS.items():
        with open(Path(spec_dir) / name, encoding="utf-8") as f:
            specs[api] = (yaml.safe_load(f), base)
    return specs


def schema_errors(schema, value, spec, where):
    # Refs such as #/components/schemas/Volume resolve inside the wrapper, which carries the spec's components.
    wrapper = {"allOf": [schema], "components": spec.get("components", {})}
    validator = jsonschema.Draft202012Validator(wrapper, format_checker=jsonschema.FormatChecker())
    return [f"{where}: {e.message}" + (f" (at {'/'.join(map(str, e.absolute_path))})" if e.absolute_path else "")
            for e in validator.iter_errors(value)]


def resolve(spec, node):
    while isinstance(node, dict) and "$ref" in node:
        ref = node["$ref"]
        assert ref.startswith("#/"), ref
        target = spec
        for part in ref[2:].split("/"):
            target = target[part]
        node = target
    return node


def find_operation(spec, base, method, path):
    if base and not path.startswith(base + "/"):
        return None, None, None
    rel = path[len(base):]
    for template, item in spec["paths"].items():
        pattern = "^" + re.sub(r"\\\{([^}]+)\\\}", r"(?P<\1>[^/]+)", re.escape(template)) + "$"
        m = re.match(pattern, rel)
        if m and method.lower() in item:
            return template, item, m.groupdict()
    return None, None, None


def coerce(schema, text):
    t = schema.get("type")
    try:
        if t == "integer":
            return int(text)
        if t == "number":
            return float(text)
        if t == "boolean":
            return {"true": True, "false": False}[text]
    except (ValueError, KeyError):
        return text
    if t == "array":
        return [text]
    return text


def check(record, specs):
    api = record.get("api")
    if api not in specs:
        return [f"unknown api {api!r}"]
    spec, base = specs[api]
    method, path = record.get("method", ""), record.get("path", "")
    template, item, path_params = find_operation(spec, base, method, path)
    if item is None:
        return [f"no operation {method} {path} in {SPECS[api][0]}"]
    op = item[method.lower()]
    errors = []
    headers = {k.lower(): v for k, v in record.get("headers", {}).items()}
    query = record.get("query", {})

    params = [resolve(spec, p) for p in item.get("parameters", []) + op.get("parameters", [])]
    for p in params:
        source = {"path": path_params, "query": query, "header": headers}.get(p["in"], {})
        name = p["name"].lower() if p["in"] == "header" else p["name"]
        if name not in source:
            if p.get("required"):
                errors.append(f"missing required {p['in']} parameter {p['name']}")
            continue
        schema = resolve(spec, p.get("schema", {}))
        errors += schema_errors(schema, coerce(schema, source[name]), spec, f"{p['in']} parameter {p['name']}")

    if api == "lifecycle":
        security = op.get("security", spec.get("security", []))
        for requirement in security:
            for scheme_name in requirement:
                scheme = spec["components"]["securitySchemes"][scheme_name]
                if scheme.get("in") == "header" and scheme["name"].lower() not in headers:
                    errors.append(f"missing {scheme['name']} header")

    body_spec = resolve(spec, op.get("requestBody", {}))
    content_type = headers.get("content-type", "").split(";")[0].strip()
    has_body = "body" in record
    if body_spec:
        content = body_spec.get("content", {})
        if body_spec.get("required") and not has_body and content_type not in content:
            errors.append("missing required request body")
        if has_body or content_type:
            if content_type not in content:
                errors.append(f"content type {content_type!r} is not one of {sorted(content)}")
            elif content_type == "application/json":
                if not record.get("bodyIsJson", True):
                    errors.append("the body is not JSON")
                else:
                    errors += schema_errors(content[content_type].get("schema", {}), record.get("body"), spec, "body")
    elif has_body and record.get("body") not in (None, {}):
        errors.append(f"{method} {template} takes no request body")
    return errors


def records_from(lines):
    for line in lines:
        line = line.strip()
        if PREFIX in line:
            line = line[line.index(PREFIX) + len(PREFIX):]
        elif not line.startswith("{"):
            continue
        yield json.loads(line)


def self_test(spec_dir, specs):
    data = Path(spec_dir)
    passed = failed = 0
    for name, want_valid in (("requests-valid.jsonl", True), ("requests-invalid.jsonl", False)):
        for record in records_from((data / name).read_text(encoding="utf-8").splitlines()):
            errors = check(record, specs)
            ok = (not errors) == want_valid
            passed += ok
            failed += not ok
            label = record.get("case", f"{record.get('method')} {record.get('path')}")
            print(f"{'PASS' if ok else 'FAIL'}  {'valid' if want_valid else 'invalid'}: {label}"
                  + (f" -> {'; '.join(errors)}" if errors else ""))
    print(f"{passed} passed, {failed} failed")
    return 0 if failed == 0 and passed > 0 else 1


def main(argv):
    if len(argv) < 3:
        print(__doc__, file=sys.stderr)
        return 2
    specs = load_specs(argv[1])
    if argv[2] == "--self-test":
        return self_test(argv[1], specs)
    minimum = int(argv[argv.index("--min") + 1]) if "--min" in argv else 1
    with open(argv[2], encoding="utf-8", errors="replace") as f:
        records = list(records_from(f))
    invalid = 0
    for record in records:
        errors = check(record, specs)
        invalid += bool(errors)
        print(f"{'ok     ' if not errors else 'INVALID'} {record.get('api')} {record.get('method')} {record.get('path')}"
              + (f": {'; '.join(errors)}" if errors else ""))
    print(f"{len(records) - invalid} valid, {invalid} invalid request(s)")
    if len(records) < minimum:
        print(f"expected at least {minimum} request(s), saw {len(records)}", file=sys.stderr)
        return 1
    return 1 if invalid else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
