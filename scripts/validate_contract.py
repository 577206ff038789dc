#!/usr/bin/env python3
"""Validates every request and response the reference server recorded during the HTTP conformance run against
docs/openapi.yaml, and fails listing every violation (grouped, with one example each).

usage: scripts/validate_contract.py docs/openapi.yaml CONTRACT_LOG

The log is written by the server started with `--test-mode --contract-log PATH` (Tests/DiarySDKHTTPTests set it
from DIARY_CONTRACT_LOG): one JSON object per line with method, template, path, query, requestContentType,
authenticated, idempotencyKey, requestBody (base64), status, responseContentType, responseBody (base64; for the
change stream, its first events). Needs scripts/requirements-contract.txt.

Every response is validated. A request is validated when the server accepted it (2xx): the conformance checks send
invalid input on purpose, and the server refusing it is the behaviour under test. The test-mode routes
(`/v1/_test/*`) are described in the spec's text, not as paths, and are skipped.

A change stream (`text/event-stream`) is checked event by event: each has an `id` that is a `ChangePosition`, an
`event` of `open`, `reload` or `change`, and one `data` line of JSON, a `Change` for `change` and
`{"position": ChangePosition}` otherwise. The log must hold at least one stream that carried a `change`.
"""
import base64
import json
import sys
from collections import OrderedDict
from urllib.parse import parse_qsl

from openapi_core import Config, OpenAPI
from openapi_core.testing import MockRequest, MockResponse
from openapi_core.validation.schemas import oas31_schema_validators_factory


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


def server_sent_events(text):
    """The events of a `text/event-stream` body as (fields, data lines) pairs; comments are skipped."""
    events = []
    fields, data = {}, []
    for line in text.replace("\r\n", "\n").replace("\r", "\n").split("\n"):
        if line == "":
            if fields or data:
                events.append((fields, data))
            fields, data = {}, []
            continue
        if line.startswith(":"):
            continue
        name, _, value = line.partition(":")
        value = value[1:] if value.startswith(" ") else value
        if name == "data":
            data.append(value)
        else:
            fields[name] = value
    return events


def event_violations(openapi, body):
    """What is wrong with each event of a change stream's body, and how many `change` events it has."""
    schemas = openapi.spec / "components" / "schemas"
    position = oas31_schema_validators_factory.create(openapi.spec, schemas / "ChangePosition")
    change = oas31_schema_validators_factory.create(openapi.spec, schemas / "Change")
    problems, changes = [], 0
    for fields, data in server_sent_events(body.decode("utf-8")):
        name = fields.get("event", "message")
        try:
            position.validate(fields.get("id"))
            if len(data) != 1:
                raise ValueError(f"a {name} event has {len(data)} data lines, not one")
            value = json.loads(data[0])
            if name == "change":
                changes += 1
                change.validate(value)
                if value.get("position") != fields["id"]:
                    raise ValueError("a change event's id is not its change's position")
            elif name in ("open", "reload"):
                if not isinstance(value, dict) or set(value) != {"position"}:
                    raise ValueError(f"an {name} event's data is not {{\"position\": …}}")
                position.validate(value["position"])
            else:
                raise ValueError(f"an event named {name!r}, not open, reload or change")
        except Exception as error:  # every failure is a violation to list
            problems.append(f"event {name}: {describe(error)}")
    return problems, changes


def main():
    if len(sys.argv) != 3:
        print(__doc__)
        return 2
    config = Config(extra_media_type_deserializers={
        "application/problem+json": json.loads, "text/event-stream": lambda body: body.decode("utf-8")})
    openapi = OpenAPI.from_file_path(sys.argv[1], config=config)
    violations = OrderedDict()
    checked = 0
    streamed_changes = 0
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
            response_body = base64.b64decode(exchange["responseBody"])
            if (exchange.get("responseContentType") or "").startswith("text/event-stream"):
                problems, changes = event_violations(openapi, response_body)
                streamed_changes += changes
                for message in problems:
                    violations.setdefault((where, "event", message), []).append(exchange)
            response = MockResponse(
                response_body, exchange["status"], content_type=exchange.get("responseContentType") or "")
            try:
                openapi.validate_response(request, response)
            except Exception as error:
                message = describe(error)
                violations.setdefault((where, "response", message), []).append(exchange)
    if checked == 0:
        print(f"contract: {sys.argv[2]} holds no exchanges; was the HTTP conformance run recorded?")
        return 1
    if streamed_changes == 0:
        print(f"contract: {sys.argv[2]} holds no change stream (GET /v1/changes) that carried a change event")
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
