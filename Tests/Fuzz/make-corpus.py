#!/usr/bin/env python3
"""Writes the seed corpora of the libFuzzer targets into Tests/Fuzz/Corpus/<Target>/.

Deterministic: running it again rewrites the same bytes. Files named `crash-*` (reproducers of
real findings, kept on purpose) are left alone; every other file in the four folders is replaced.

    python3 Tests/Fuzz/make-corpus.py

Formats: Docs/formats.md (records and batch files); Tests/Fuzz/FuzzIngestRequest/main.swift
(the 4 control bytes in front of each HTTP stream); Tests/Fuzz/FuzzIntakeLog/main.swift (the
control byte in front of each call record or intake log).
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


# The intake log (Docs/formats.md, "The intake log"; Tests/Fuzz/FuzzIntakeLog/main.swift for the
# control byte in front of each input).
M64 = (1 << 64) - 1


def _fmix(value):
    value ^= value >> 33
    value = value * 0xFF51AFD7ED558CCD & M64
    value ^= value >> 33
    value = value * 0xC4CEB9FE1A85EC53 & M64
    return value ^ (value >> 33)


def _step(lane, word, prime):
    total = (lane + word * 0xC2B2AE3D27D4EB4F) & M64
    return (((total << 31) | (total >> 33)) & M64) * prime & M64


def intake_checksum(data: bytes) -> int:
    """IntakeLogChecksum.of, re-implemented (Sources/SimpleDataLogs/Intake/Log/IntakeLogChecksum.swift)."""
    first, second, index = _fmix(0x9E3779B97F4A7C15 ^ len(data)), 0xC2B2AE3D27D4EB4F, 0
    while index + 16 <= len(data):
        first = _step(first, int.from_bytes(data[index:index + 8], "little"), 0x9FB21C651E98DF25)
        second = _step(second, int.from_bytes(data[index + 8:index + 16], "little"), 0xD6E8FEB86659FD93)
        index += 16
    if index + 8 <= len(data):
        first = _step(first, int.from_bytes(data[index:index + 8], "little"), 0x9FB21C651E98DF25)
        index += 8
    second = _step(second, int.from_bytes(data[index:], "little") ^ 0xFF51AFD7ED558CCD, 0xD6E8FEB86659FD93)
    hashed = _fmix(first ^ (((second << 23) | (second >> 41)) & M64))
    return (hashed ^ (hashed >> 32)) & 0xFFFFFFFF


def leb(n: int) -> bytes:
    out = bytearray()
    while n >= 0x80:
        out.append(n & 0x7F | 0x80)
        n >>= 7
    return bytes(out + bytes([n]))


def cstr(text) -> bytes:
    data = text.encode() if isinstance(text, str) else text
    return leb(len(data)) + data


def cprops(props) -> bytes:
    out = leb(len(props))
    for key, value in props:
        out += cstr(key)
        if isinstance(value, bool):
            out += b"\x03" + bytes([value])
        elif isinstance(value, int):
            out += b"\x01" + struct.pack("<q", value)
        elif isinstance(value, float):
            out += b"\x02" + struct.pack("<d", value)
        else:
            out += b"\x00" + cstr(value)
    return out


def call_event(name="screen_view", seq=1, origin=0, device=None, props=None, scoped=None) -> bytes:
    props = props if props is not None else [("seq", seq), ("screen", "home"), ("price", 19.99), ("ok", True)]
    uid = bytes.fromhex("018f00000000700080000000000000%02x" % (seq & 0xFF))
    return (b"\x01" + cstr(name) + uid + struct.pack("<qq", 1700000000000 + seq, 1700000000000 + seq) + bytes([origin])
            + (b"\x00" if device is None else b"\x01" + cstr(device)) + cprops(props)
            + (b"\x00" if scoped is None else b"\x01" + cprops(scoped)))


def call_items():
    """One payload of each kind (Sources/SimpleDataLogs/Intake/Log/IntakeRecordCodec.swift)."""
    return {
        "event-live": (1, call_event()),
        "event-backdated-device-scoped": (1, call_event(seq=2, origin=1, device="dev-\u00fc", scoped=[("plan", "pro"), ("nan", float("nan"))])),
        "event-autocaptured-no-props": (1, call_event("app_launched", seq=3, origin=2, props=[])),
        "set-device-id": (2, b"\x02\x01" + cstr("user-42")),
        "set-device-id-none": (2, b"\x02\x00"),
        "set-default-properties": (3, b"\x03" + cprops([("a", 1), ("b", -1.5), ("c", "x"), ("d", False)])),
        "set-enabled": (4, b"\x04\x01"),
        "reset": (5, b"\x05\x01" + cstr("next-user")),
        "activity": (6, b"\x06\x02" + struct.pack("<q", 1700000000123)),
        "restore-identity": (7, b"\x07\x01" + cstr("dev-1") + cprops([("tier", "gold")])),
        "replay-begins": (8, b"\x08"),
        "replay-ends": (9, b"\x09"),
        "checkpoint": (10, b"\x07\x00" + cprops([])),
    }


def log_header(slots, version=2, released=0, boot=b"8f0c1c36-ffe1-4a53-9b1c-0d0e9a7c0001", magic=b"SDLILOG1", slot_size=128) -> bytes:
    """The header's first 96 bytes (the compact form; the harness pads it to 4,096)."""
    head = magic + struct.pack("<IIII", version, slot_size, slots, 0) + struct.pack("<Q", released)
    head += bytes([len(boot)]) + boot
    return head + bytes(96 - len(head))


def log_record(sequence, kind, payload, sealed=True, version=2, checksum=None, slots=None) -> bytes:
    """One record, padded to whole slots; `sealed` False writes a published one (no checksum)."""
    count = slots if slots is not None else (24 + len(payload) + 127) // 128
    body = struct.pack("<QIHBB", sequence, len(payload), count, kind, 0) + payload
    summed = sealed or version == 1
    crc = (intake_checksum(body) if checksum is None else checksum) if summed else 0
    mark = b"SDLR" if version == 1 or not sealed else b"SDLS"
    data = mark + struct.pack("<I", crc) + body
    return data + bytes((-len(data)) % 128)


def log_file(records, version=2, released=0, boot=None, extra_slots=0) -> bytes:
    slots = b"".join(records) + bytes(128 * extra_slots)
    kwargs = {} if boot is None else {"boot": boot}
    return log_header(len(slots) // 128, version=version, released=released, **kwargs) + slots


def intake_log_seeds():
    items = call_items()
    seeds = {"empty": b""}
    for name, (kind, payload) in items.items():
        seeds["call-" + name] = b"\x00" + payload
    event = items["event-live"][1]
    seeds["call-event-truncated"] = b"\x00" + event[:-3]
    seeds["call-event-trailing-byte"] = b"\x00" + event + b"\x00"
    seeds["call-invalid-utf8"] = b"\x00\x02\x01\x02\xc3\x28"
    seeds["call-huge-count"] = b"\x00\x03\xff\xff\xff\xff\x0f"
    seeds["call-varint-11-bytes"] = b"\x00\x02\x01" + b"\xff" * 10 + b"\x01"

    big = call_event("a" * 150, seq=9, props=[("seq", 9), ("text", "b" * 120)])  # spans 3 slots
    mixed = [
        log_record(1, 7, items["restore-identity"][1]),
        log_record(2, 1, call_event(seq=2), sealed=True),
        log_record(3, 1, call_event(seq=3), sealed=False),
        log_record(4, 2, items["set-device-id"][1]),
        log_record(5, 1, big, sealed=False),
        log_record(6, 10, items["checkpoint"][1]),
    ]
    seeds["log-v2-published-and-sealed"] = b"\x01" + log_file(mixed, released=1, extra_slots=2)
    seeds["log-v2-released-mark"] = b"\x01" + log_file(mixed, released=4)
    seeds["log-v2-no-boot-id"] = b"\x01" + log_file(mixed, boot=b"")
    seeds["log-v2-wrapped-ring"] = b"\x01" + log_file([log_record(12, 1, call_event(seq=12), sealed=False), log_record(8, 1, call_event(seq=8)),
                                                      log_record(9, 5, items["reset"][1]), log_record(11, 1, call_event(seq=11), sealed=False)], released=8)
    seeds["log-v2-torn-records"] = b"\x01" + log_file([log_record(2, 1, call_event(seq=2), checksum=0xDEADBEEF), log_record(3, 1, call_event(seq=3), slots=2),
                                                      log_record(4, 1, big)[:200] + bytes(56), log_record(5, 9, b"\x09")])
    # A published record whose slots hold a sealed one: read under its own boot, the sealed one is
    # its payload; under another boot, the published one is not trusted and the sealed one is read.
    inner = log_record(3, 4, items["set-enabled"][1])
    outer_payload = bytes(104) + inner[:24] + inner[24:26]
    outer = log_record(7, 1, outer_payload, sealed=False)
    seeds["log-v2-published-spans-sealed"] = b"\x01" + log_file([outer[:128] + inner[:128]])
    seeds["log-v1"] = b"\x01" + log_file([log_record(1, 7, items["restore-identity"][1], version=1),
                                          log_record(2, 1, call_event(seq=2), version=1),
                                          log_record(3, 1, big, version=1), log_record(4, 6, items["activity"][1], version=1, checksum=1)],
                                         version=1, released=1, boot=b"")
    seeds["log-other-version"] = b"\x01" + log_file(mixed[:1], version=3)
    seeds["log-bad-slot-size"] = b"\x01" + log_header(1, slot_size=64) + mixed[0]
    seeds["log-not-a-log"] = b"\x01" + log_header(1, magic=b"SDLILOG2") + mixed[0]
    seeds["log-slot-count-over-file"] = b"\x01" + log_header(1000) + b"".join(mixed[:3])
    seeds["raw-truncated"] = b"\x03" + log_header(0)
    seeds["raw-v2-full-header"] = b"\x03" + log_header(2) + bytes(4096 - 96) + b"".join(mixed[1:3])
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
    for target, seeds in (("FuzzJournalRecord", journal_seeds()), ("FuzzBatchFile", batch_seeds()), ("FuzzIngestRequest", ingest_seeds()),
                          ("FuzzIntakeLog", intake_log_seeds())):
        size = write(target, seeds)
        total += size
        print(f"{target}: {len(seeds)} files, {size} bytes")
    print(f"total {total} bytes")
