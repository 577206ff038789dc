#!/usr/bin/env python3
"""Seeds a running reference server over HTTP for the PostgreSQL benchmark (bench.sh).

  seed.py BASE_URL users USERS            sign up USERS users (bench-<i>@example.com), user 0 is the viewer
  seed.py BASE_URL posts COUNT USERS      publish COUNT posts, round-robin over users 1..USERS-1, in order
  seed.py BASE_URL token                  sign in the viewer and print its access token
  seed.py BASE_URL id INDEX               sign in user INDEX and print its id

The posts are deterministic: post n has a title and a body drawn from a small vocabulary, so that a search word
("lighthouse") is in about one post in ten. Loopback only; every loop is bounded.
"""
import http.client
import json
import sys
import urllib.parse

PASSWORD = "correct horse battery staple"
WORDS = ("morning coffee garden rain walk letter train market river window bread quiet music evening "
         "friend kitchen city book winter summer autumn spring cloud street").split()


def request(base, method, path, body=None, token=None, connection=None):
    url = urllib.parse.urlparse(base)
    conn = connection or http.client.HTTPConnection(url.hostname, url.port, timeout=60)
    headers = {"Content-Type": "application/json"}
    if token:
        headers["Authorization"] = "Bearer " + token
    conn.request(method, path, body=json.dumps(body) if body is not None else None, headers=headers)
    response = conn.getresponse()
    data = response.read()
    if response.status >= 300:
        raise SystemExit(f"{method} {path}: {response.status} {data[:300]!r}")
    return json.loads(data) if data else None


def email(index):
    return f"bench-{index}@example.com"


def sign_in(base, index):
    body = {"type": "password", "email": email(index), "password": PASSWORD}
    return request(base, "POST", "/v1/auth/sign-in", body)


def post(n):
    words = [WORDS[(n * 7 + k * 3) % len(WORDS)] for k in range(60)]
    if n % 10 == 0:
        words[n % 60] = "lighthouse"
    body = " ".join(words).capitalize() + "."
    return {"title": f"Day {n}: {WORDS[n % len(WORDS)]} and {WORDS[(n * 5) % len(WORDS)]}", "body": body,
            "tags": [WORDS[n % len(WORDS)], "diary"], "images": [], "isAnonymous": n % 17 == 0}


def main():
    base, command = sys.argv[1], sys.argv[2]
    if command == "users":
        for index in range(int(sys.argv[3])):
            request(base, "POST", "/v1/auth/sign-up",
                    {"email": email(index), "password": PASSWORD, "nickname": f"bench{index}",
                     "timeZoneIdentifier": "UTC"})
    elif command == "posts":
        count, users = int(sys.argv[3]), int(sys.argv[4])
        tokens = [sign_in(base, index)["accessToken"] for index in range(1, users)]
        # One after another, in order: every cluster seeded with the same count holds the same posts in the same
        # order, so the first pages at 10,000 and at 1,000,000 posts show the same posts (seeded from 8 threads, the
        # order of the newest posts, and so what a search page tests, differed from cluster to cluster).
        url = urllib.parse.urlparse(base)
        conn = http.client.HTTPConnection(url.hostname, url.port, timeout=60)
        for n in range(count):
            request(base, "POST", "/v1/posts", post(n), tokens[n % len(tokens)], conn)
    elif command == "token":
        print(sign_in(base, 0)["accessToken"])
    elif command == "id":
        print(sign_in(base, int(sys.argv[3]))["user"]["id"])
    else:
        raise SystemExit(__doc__)


main()
