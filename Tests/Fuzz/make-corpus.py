#!/usr/bin/env python3
"""Writes the seed corpora of the libFuzzer targets into Tests/Fuzz/Corpus/<Target>/.

Deterministic: running it again rewrites the same bytes. Files named `crash-*` (reproducers of
real findings, kept on purpose) are left alone; every other file in the three folders is replaced.

    python3 Tests/Fuzz/make-corpus.py

Formats: Docs/formats.md (records and batch files); Tests/Fuzz/FuzzIngestRequest/main.swift
(the 4 control bytes in front of each HTTP stream).
"""
import os
import random
import struct
import zlib

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "Corpus")
MARKER = b"\xffSDL"


def record(payload: bytes, length=None, crc=None) -> bytes:
    """One framed record; `length`/`crc` override the fields to make damage."""
    n = len(payload) if length is None else length
    length_field = struct.pack("<I", n)
    checksum = zlib.crc32(payload, zlib.crc32(length_field)) & 0xFFFFFFFF if crc is None else crc
    return MARKER + length_field + struct.pack("<I", checksum) + payload


def header(seq=1, path="r", uuid="018f0000-0000-7000-8000-000000000001", events=None) -> bytes:
    text = '{"sdl_batch":1,"id":"%s","seq":%d,"path":"%s"' % (uuid, seq, path)
    if events is not None:
        text += ',"events":%d' % events
    return (text + "}").encode()


def event(i: int, name="screen_view", props=None) -> bytes:
    props = props if props is not None else '{"screen":"home","n":%d,"ok":true,"x":1.5}' % i
    return ('{"event":"%s","event_id":"018f0000-0000-7000-8000-%012x","ts":1700000000%03d,'
            '"device_id":"dev-1","session_id":"s-1","app_state":"active","props":%s}' % (name, i, i % 1000, props)).encode()


def journal_seeds():
    events = [event(i) for i in range(4)]
    good = record(header()) + b"".join(record(e) for e in events)
    second = len(record(header())) + len(record(events[0]))  # offset of the second event record
    seeds = {
        "empty": b"",
        "valid-4-events": good,
        "valid-header-only": record(header()),
        "valid-no-header": b"".join(record(e) for e in events),
        "valid-empty-payload": record(b"") + record(b"{}") + record(b""),
        "torn-tail": good[:-7],
        "torn-in-header": good[: second + 6],
        "marker-only": MARKER,
        "corrupt-checksum": good[: second + 8] + bytes([good[second + 8] ^ 0x01]) + good[second + 9:],
        "corrupt-length-short": good[: second + 4] + struct.pack("<I", len(events[1]) - 3) + good[second + 8:],
        "corrupt-length-huge": good[: second + 4] + struct.pack("<I", 0xFFFFFFFF) + good[second + 8:],
        "corrupt-length-over-cap": record(b"x" * 16, length=262_145),
        "corrupt-payload-byte": good[: second + 20] + b"#" + good[second + 21:],
        "corrupt-marker": good[: second + 1] + b"Q" + good[second + 2:],
        "garbage-between-records": record(events[0]) + b"garbage\x00\x01\x02" + record(events[1]) + b"\xff\xff\xfe" + record(events[2]),
        "ff-inside-payload": record(b"\xff\xffSDL\x00\x00\x00\x00not utf-8") + record(events[0]),
        "nested-record-in-payload": record(record(events[0])) + record(events[1]),
        "ff-run": b"\xff" * 64,
        "marker-run": MARKER * 16,
        "max-payload": record(b"a" * 1000),
        "truncated-then-valid": record(events[0])[:-1] + record(events[1]),
        # Fix-up mode (first byte 0x01): the harness rewrites these zero CRCs to the right values.
        "fixup-records": b"\x01" + record(events[0], crc=0) + record(b"", crc=0) + record(b"\xff\xfe", crc=0),
        "fixup-overlapping": b"\x01" + MARKER + struct.pack("<I", 20) + b"\0\0\0\0" + record(b"abcd", crc=0),
    }
    rng = random.Random(8)
    seeds["garbage-random"] = bytes(rng.randrange(256) for _ in range(512))
    noisy = bytearray(good)
    for _ in range(12):
        noisy[rng.randrange(len(noisy))] = rng.randrange(256)
    seeds["valid-with-bit-rot"] = bytes(noisy)
    return seeds


def batch_seeds():
    events = [event(i) for i in range(3)]
    h = record(header(seq=7, events=3))
    body = b"".join(record(e) for e in events)
    seeds = {
        "empty": b"",
        "valid-batch": h + body,
        "valid-batch-split-path": record(header(seq=12, path="r01")) + body,
        "header-only": h,
        "no-header": body,
        "two-headers": h + record(events[0]) + record(header(seq=8)) + record(events[1]),
        "header-not-first": record(events[0]) + h + record(events[1]),
        "header-damaged": h[:20] + b"!" + h[21:] + body,
        "header-prefix-only": record(b'{"sdl_batch":') + record(b'{"sdl_batch"') + record(events[0]),
        "torn-tail": (h + body)[:-5],
        "corrupt-checksum": h + record(events[0], crc=0x12345678) + record(events[1]),
        "empty-payloads": h + record(b"") + record(b"") + record(events[2]),
        "non-utf8-payload": h + record(b"\xff\xfe\xfd") + record(b"\xc3\x28"),
        "props-unicode": h + record(event(1, name="caf\u00e9", props='{"k":"\\u00e9\\ud83d\\ude00","emoji":"\U0001F600"}')),
        "garbage": bytes(random.Random(9).randrange(256) for _ in range(256)),
    }
    return seeds


def http(flags=0, split=0, chunk=0, stream=b""):
    return bytes([flags, split & 0xFF, (split >> 8) & 0xFF, chunk]) + stream


def ingest_seeds():
    body = ('{"sent_at":1700000000000,"events":[%s]}' % b",".join(event(i) for i in range(2)).decode()).encode()
    auth = b"Authorization: Bearer sdl_test_key\r\nContent-Type: application/json\r\n"

    def post(body=body, extra=b"", version=b"HTTP/1.1", target=b"/v1/events"):
        return (b"POST " + target + b" " + version + b"\r\nHost: 127.0.0.1:8080\r\n" + auth + extra
                + b"Content-Length: " + str(len(body)).encode() + b"\r\n\r\n" + body)

    valid = post()
    pair = post(extra=b"SDL-Batch-ID: 018f0000-0000-7000-8000-0000000000aa\r\n") + post(body=b'{"sent_at":1,"events":[]}')
    seeds = {
        "empty": http(),
        "valid-post": http(0, 40, 0, valid),
        "valid-post-bytewise": http(0, 3, 0, valid),
        "valid-post-split-in-body": http(0, len(valid) - 10, 7, valid),
        "keep-alive-pipelined-pair": http(0, len(pair) // 2, 5, pair),
        "long-connection-compaction": http(0x0E, 0, 3, pair),
        "long-connection-compaction-small-limits": http(0x0F | 0x40, 11, 0, b"POST /e HTTP/1.1\r\nContent-Length: 5\r\n\r\nhello"),
        "pipelined-then-garbage": http(0, 100, 3, valid + b"BOGUS\r\n\r\n"),
        "expect-100-continue": http(0, 0, 9, post(extra=b"Expect: 100-continue\r\n")),
        "expect-100-continue-head-only": http(0, 0, 0, post(extra=b"Expect: 100-continue\r\n")[: -len(body)]),
        "chunked-501": http(0, 20, 0, b"POST /v1/events HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n0\r\n\r\n"),
        "http10-keep-alive": http(0, 0, 2, post(version=b"HTTP/1.0", extra=b"Connection: keep-alive\r\n")),
        "http11-connection-close": http(0, 10, 0, post(extra=b"Connection: close\r\n")),
        "get-no-body": http(0, 5, 0, b"GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n"),
        "absolute-form-target": http(0, 0, 0, post(target=b"http://127.0.0.1:8080/v1/events?x=1#f")),
        "gzip-header": http(0, 0, 0, post(extra=b"Content-Encoding: gzip\r\n")),
        "bad-request-line-double-space": http(0, 0, 0, b"GET  / HTTP/1.1\r\n\r\n"),
        "bad-request-line-no-version": http(0, 0, 0, b"GET /\r\n\r\n"),
        "bad-request-line-lf-only": http(0, 0, 0, b"GET / HTTP/1.1\nHost: x\n\n"),
        "bad-method-chars": http(0, 0, 0, b"G(T / HTTP/1.1\r\n\r\n"),
        "bad-target-control": http(0, 0, 0, b"GET /\x01 HTTP/1.1\r\n\r\n"),
        "unsupported-version-505": http(0, 0, 0, b"GET / HTTP/2.0\r\n\r\n"),
        "bad-header-space-before-colon": http(0, 0, 0, b"GET / HTTP/1.1\r\nHost : x\r\n\r\n"),
        "bad-header-folding": http(0, 0, 0, b"GET / HTTP/1.1\r\nX-A: 1\r\n  folded\r\n\r\n"),
        "bad-header-no-colon": http(0, 0, 0, b"GET / HTTP/1.1\r\nNoColon\r\n\r\n"),
        "content-length-invalid": http(0, 0, 0, b"POST / HTTP/1.1\r\nContent-Length: 1x\r\n\r\n"),
        "content-length-negative": http(0, 0, 0, b"POST / HTTP/1.1\r\nContent-Length: -1\r\n\r\n"),
        "content-length-conflict": http(0, 0, 0, b"POST / HTTP/1.1\r\nContent-Length: 3\r\nContent-Length: 4\r\n\r\nabcd"),
        "content-length-repeated-same": http(0, 0, 0, b"POST / HTTP/1.1\r\nContent-Length: 3\r\ncontent-length:  3 \r\n\r\nabc"),
        "content-length-19-digits": http(0, 0, 0, b"POST / HTTP/1.1\r\nContent-Length: 9999999999999999999\r\n\r\n"),
        "body-too-large-413": http(0, 0, 0, b"POST / HTTP/1.1\r\nContent-Length: 4194305\r\n\r\n"),
        "small-limits-body-413": http(1, 0, 0, b"POST / HTTP/1.1\r\nContent-Length: 17\r\n\r\n" + b"x" * 17),
        "small-limits-head-431": http(1, 0, 0, b"GET / HTTP/1.1\r\nX-Long: " + b"a" * 80 + b"\r\n\r\n"),
        "small-limits-no-terminator-431": http(3, 0, 1, b"GET / HTTP/1.1\r\nX-Long: " + b"a" * 80),
        "huge-headers-431": http(0, 16384, 0, b"GET / HTTP/1.1\r\n" + b"".join(b"X-Header-%04d: %s\r\n" % (i, b"v" * 100) for i in range(320)) + b"\r\n"),
        "json-deep-nesting": http(0, 0, 0, post(body=b"[" * 70 + b"]" * 70)),
        "json-escapes-and-numbers": http(0, 0, 0, post(body=b'{"sent_at":1e3,"events":[{"event":"\\ud800","event_id":"\\u0000","ts":-0,"props":{"a":1.7976931348623157e309,"b":-9223372036854775809,"c":[null,false]}}]}')),
        "json-invalid-utf8": http(0, 0, 0, post(body=b'{"sent_at":1,"events":[{"event":"\xc3\x28","event_id":"a","ts":1}]}')),
        "json-duplicate-keys": http(0, 0, 0, post(body=b'{"sent_at":1,"sent_at":2,"events":[{"event":"a","event":"b","event_id":"x","ts":1700000000000,"engaged_ms":-1,"app_state":"asleep"}]}')),
    }
    return seeds


def write(target, seeds):
    folder = os.path.join(ROOT, target)
    os.makedirs(folder, exist_ok=True)
    for name in os.listdir(folder):
        if not name.startswith("crash-"):
            os.remove(os.path.join(folder, name))
    for name, data in sorted(seeds.items()):
        with open(os.path.join(folder, name), "wb") as f:
            f.write(data)
    return sum(len(d) for d in seeds.values())


if __name__ == "__main__":
    total = 0
    for target, seeds in (("FuzzJournalRecord", journal_seeds()), ("FuzzBatchFile", batch_seeds()), ("FuzzIngestRequest", ingest_seeds())):
        size = write(target, seeds)
        total += size
        print(f"{target}: {len(seeds)} files, {size} bytes")
    print(f"total {total} bytes")
