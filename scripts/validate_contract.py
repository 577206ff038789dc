#!/usr/bin/env python3
"""Validates every request and response the reference server recorded during the HTTP conformance run against
docs/openapi.yaml, and fails listing every violation (grouped, with one example each).

usage: scripts/validate_contract.py docs/openapi.yaml CONTRACT_LOG

The log is written by the server started with `--test-mode --contract-log PATH` (Tests/DiarySDKHTTPTests set it
from DIARY_CONTRACT_LOG): one JSON object per line with method, template, path, query, requestContentType,
authenticated, idempotencyKey, requestBody (base64), status, responseContentType, responseBody (base64; absent for
the change stream). Needs scripts/requirements-contract.txt.

Every response is validated. A request is validated when the server accepted it (2xx): the conformance checks send
invalid input on purpose, and the server refusing it is the behaviour under test. The test-mode routes
(`/v1/_test/*`) are described in the spec's text, not as paths, and are skipped.
"""
import base64
import json
import sys
from collections import OrderedDict
from urllib.parse import parse_qsl

from openapi_core import Config, OpenAPI
from openapi_core.testing import MockRequest, MockResponse


def describe(error):
    """The validator's message and the schema errors beneath it, on one line."""
    parts = [f"{type(error).__name__}: {error}"]
    seen = set()
    while error is not None and id(error) not in seen:
        seen.add(id(error))
        for schema_error in getattr(error, "schema_errors", []) or []:
            path = "/".join(str(p) for p in schema_error.absolute_path)
            parts.append(f"at '{path}': {schema_error.message[:300]}")
        error = error.__cause__ or error.__context__
        if error is not None and id(error) not in seen:
            parts.append(f"{type(error).__name__}: {str(error)[:300]}")
    return " | ".join(dict.fromkeys(parts))


def main():
    if len(sys.argv) != 3:
        print(__doc__)
        return 2
    config = Config(extra_media_type_deserializers={"application/problem+json": json.loads})
    openapi = OpenAPI.from_file_path(sys.argv[1], config=config)
    violations = OrderedDict()
    checked = 0
    with open(sys.argv[2], encoding="utf-8") as log:
        for line in log:
            if not line.strip():
                continue
            exchange = json.loads(line)
            if exchange["template"].startswith("/v1/_test/"):
                continue
            checked += 1
            headers = {}
            if exchange.get("authenticated"):
                headers["Authorization"] = "Bearer recorded"
            if exchange.get("idempotencyKey") is not None:
                headers["Idempotency-Key"] = exchange["idempotencyKey"]
            body = base64.b64decode(exchange["requestBody"])
            request = MockRequest(
                "http://127.0.0.1:8080", exchange["method"], exchange["path"],
                args=parse_qsl(exchange["query"], keep_blank_values=True), headers=headers, data=body or None,
                content_type=exchange.get("requestContentType") or "")
            where = f"{exchange['method']} {exchange['template']} → {exchange['status']}"
            if 200 <= exchange["status"] < 300:
                try:
                    openapi.validate_request(request)
                except Exception as error:  # every validator failure is a violation to list
                    message = describe(error)
                    violations.setdefault((where, "request", message), []).append(exchange)
            if exchange.get("responseBody") is None:
                continue
            response = MockResponse(
                base64.b64decode(exchange["responseBody"]), exchange["status"],
                content_type=exchange.get("responseContentType") or "")
            try:
                openapi.validate_response(request, response)
            except Exception as error:
                message = describe(error)
                violations.setdefault((where, "response", message), []).append(exchange)
    if checked == 0:
        print(f"contract: {sys.argv[2]} holds no exchanges; was the HTTP conformance run recorded?")
        return 1
    if violations:
        print(f"contract: {len(violations)} distinct violations of {sys.argv[1]} in {checked} exchanges:")
        for (where, side, message), examples in violations.items():
            example = examples[0]
            print(f"- {where} [{side}] ×{len(examples)}: {message}")
            print(f"    e.g. {example['method']} {example['path']}?{example['query']}")
            payload = example["requestBody"] if side == "request" else example.get("responseBody") or ""
            print(f"    body: {base64.b64decode(payload)[:400]!r}")
        return 1
    print(f"contract: {checked} exchanges match {sys.argv[1]}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
