#!/usr/bin/env python3
"""An independent client of `indoorlab serve`, in Python with PyPI's `websockets` (docs/live.md).

  live_client.py schema --binary BIN --scenario SCENARIO
      Starts the service and checks the schema from outside: hello → welcome, each message acknowledged, one
      location per closed scan window with its fields, error frames with codes and field paths, 401 without a token,
      /metrics counting refusals by reason.
  live_client.py abuse --binary BIN --scenario SCENARIO [--messages 10000]
      Sends that many malformed, oversized, out-of-range and unauthenticated messages (connections refused without a
      token among them): the service stays up, stores nothing of them, and counts every one in /metrics by reason.
  live_client.py kill --binary BIN --scenario SCENARIO [--kills 10] [--seed 1]
      Streams a survey session at a high rate while the service is killed with SIGKILL at random moments and
      restarted; the client reconnects and sends again what was not acknowledged, as a phone app would. At the end
      every acknowledged message is in the recording exactly once, and `indoorlab replay` reads it.

Prints one JSON object of figures; exit status 0 when every check held.
"""
import argparse, asyncio, json, os, random, re, signal, sqlite3, subprocess, sys, tempfile, time, urllib.error, urllib.request

from websockets.asyncio.client import connect
from websockets.exceptions import InvalidStatus, WebSocketException

T0 = 1_800_000_000.0


class Service:
    """The service as a child process, on a fixed port once it has one."""

    def __init__(self, binary, scenario, folder, extra=()):
        self.binary, self.scenario, self.folder, self.extra = binary, scenario, folder, list(extra)
        self.port, self.proc = 0, None
        for name in ("phone", "viewer", "survey"):
            with open(os.path.join(folder, name + ".token"), "w") as f:
                f.write(name + "-" + os.urandom(12).hex() + "\n")
        self.tokens = {n: open(os.path.join(folder, n + ".token")).read().strip() for n in ("phone", "viewer", "survey")}

    def start(self):
        args = [self.binary, "serve", self.scenario, "--port", str(self.port), "--json", "--no-advertise",
                "--token-file", os.path.join(self.folder, "phone.token"),
                "--viewer-token-file", os.path.join(self.folder, "viewer.token"),
                "--survey-token-file", os.path.join(self.folder, "survey.token"),
                "--recordings", os.path.join(self.folder, "rec")] + self.extra
        self.proc = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=open(os.path.join(self.folder, "serve.err"), "a"), text=True)
        line = self.proc.stdout.readline()
        if not line:
            raise SystemExit("the service did not start: " + open(os.path.join(self.folder, "serve.err")).read()[-2000:])
        self.port = json.loads(line)["port"]

    def kill(self):
        self.proc.send_signal(signal.SIGKILL)
        self.proc.wait()

    def stop(self):
        self.proc.send_signal(signal.SIGTERM)
        self.proc.wait(timeout=30)

    def url(self, path):
        return f"ws://127.0.0.1:{self.port}{path}"

    def get(self, path, token=None):
        req = urllib.request.Request(f"http://127.0.0.1:{self.port}{path}")
        if token:
            req.add_header("Authorization", "Bearer " + token)
        try:
            with urllib.request.urlopen(req, timeout=10) as r:
                return r.status, r.read().decode()
        except urllib.error.HTTPError as e:
            return e.code, e.read().decode()


def beacons_of(service):
    status, body = service.get("/v1/venue")
    venue = json.loads(body)
    return venue, [b for b in venue["beacons"]]


def wire(beacon):
    """How a phone names a venue beacon in a message, as /v1/venue gives it."""
    return beacon["wire"]


async def schema_check(args):
    folder = tempfile.mkdtemp(prefix="live-py-")
    service = Service(args.binary, args.scenario, folder)
    service.start()
    problems = []

    def expect(cond, what):
        if not cond:
            problems.append(what)

    try:
        venue, beacons = beacons_of(service)
        expect(venue.get("schema") == 1 and venue["bounds"]["maxX"] > 0, "GET /v1/venue: schema 1 and bounds")
        status, _ = service.get("/v1/phones")
        expect(status == 401, f"GET /v1/phones without a token: 401, got {status}")
        try:
            async with connect(service.url("/v1/phone")) as ws:
                await ws.send(json.dumps({"type": "hello", "phone": "intruder"}))
            problems.append("a phone socket without a token was upgraded")
        except InvalidStatus as e:
            expect(e.response.status_code == 401, f"phone socket without a token: 401, got {e.response.status_code}")
        headers = {"Authorization": "Bearer " + service.tokens["phone"]}
        got = []
        async with connect(service.url("/v1/phone"), additional_headers=headers) as ws:
            await ws.send(json.dumps({"type": "hello", "phone": "py-1", "model": "python", "app": "websockets", "schema": 1, "t": T0}))
            welcome = json.loads(await ws.recv())
            expect(welcome.get("type") == "welcome" and welcome.get("schema") == 1 and welcome.get("lastSeq") == -1
                   and welcome.get("venue") == venue["name"] and welcome.get("scanWindow") == venue["scanWindow"], f"welcome: {welcome}")
            seq = 0
            for k in range(4):
                t = T0 + k * venue["scanWindow"] + 0.25
                samples = [{"beacon": wire(b), "rssi": -65 - 3 * i, "t": t + 0.01 * i} for i, b in enumerate(beacons[:5])]
                await ws.send(json.dumps({"type": "scans", "seq": seq, "samples": samples}))
                seq += 1
            await ws.send(json.dumps({"type": "heading", "seq": seq, "degrees": 90, "accuracy": 10, "t": T0 + 3.6})); seq += 1
            await ws.send(json.dumps({"type": "scans", "seq": seq, "samples": [{"beacon": {"name": "no-such-beacon"}, "rssi": -70, "t": T0 + 3.7}]}))
            bad_seq = seq; seq += 1
            await ws.send('{"type":"scans","seq":' + str(seq) + ',"samples":[{"beacon":' + json.dumps(wire(beacons[0])) + ',"rssi":NaN,"t":' + str(T0 + 3.8) + '}]}')
            seq += 1
            await ws.send(json.dumps({"type": "truth", "seq": seq, "x": 1, "y": 1, "t": T0 + 3.9})); seq += 1
            deadline = time.time() + 10
            while time.time() < deadline:
                m = json.loads(await asyncio.wait_for(ws.recv(), timeout=10))
                got.append(m)
                # Locations come as windows are located, not in step with the acknowledgements.
                if [len([g for g in got if g["type"] == k]) for k in ("ack", "error", "location")] == [5, 3, 3]:
                    break
        acks = sorted(g["seq"] for g in got if g["type"] == "ack")
        expect(acks == [0, 1, 2, 3, 4], f"acks of the five good messages: {acks}")
        locations = [g for g in got if g["type"] == "location"]
        expect(len(locations) == 3, f"three closed windows, three locations: {len(locations)}")
        for l in locations:
            expect(set(l) >= {"phone", "t", "x", "y", "ellipse", "beaconsUsed"} and l["phone"] == "py-1"
                   and set(l["ellipse"]) == {"semiMajor", "semiMinor", "orientation", "confidence"}
                   and venue["bounds"]["minX"] <= l["x"] <= venue["bounds"]["maxX"], f"location fields: {l}")
        errors = [g for g in got if g["type"] == "error"]
        codes = [e["code"] for e in errors]
        expect(codes == ["unknown-beacon", "invalid-value", "forbidden"], f"error codes: {codes}")
        expect(errors and errors[0].get("seq") == bad_seq and errors[0]["message"].startswith("samples[0].beacon"), f"error frame: {errors[:1]}")
        _, metrics = service.get("/metrics")
        for reason, n in (("unknown-beacon", 1), ("invalid-value", 1), ("forbidden", 1), ("unauthorized", 2)):
            expect(f'indoorlab_rejected_messages_total{{reason="{reason}"}} {n}' in metrics, f"/metrics counts {reason}: {n}")
        status, body = service.get("/v1/phones", token=service.tokens["viewer"])
        phones = json.loads(body) if status == 200 else []
        expect(status == 200 and phones and phones[0]["phone"] == "py-1" and phones[0]["last"]["type"] == "location", f"/v1/phones: {status} {body[:200]}")
    finally:
        service.stop()
    rows = sqlite3.connect(os.path.join(folder, "rec", "py-1.sqlite")).execute("SELECT count(*) FROM rssi_samples").fetchone()[0]
    expect(rows == 20, f"the recording holds the 20 acknowledged readings: {rows}")
    print(json.dumps({"check": "schema", "problems": problems, "locations": len(locations)}))
    return not problems


async def kill_check(args):
    rng = random.Random(args.seed)
    folder = tempfile.mkdtemp(prefix="live-kill-")
    service = Service(args.binary, args.scenario, folder, ["--max-rate", "5000"])
    service.start()
    venue, beacons = beacons_of(service)
    window = venue["scanWindow"]
    total = args.messages
    per_window = 50
    bx, by = venue["bounds"]["maxX"] / 2, venue["bounds"]["maxY"] / 2

    def message(seq):
        t = T0 + seq * window / per_window
        if seq % per_window == per_window // 2:
            return {"type": "truth", "seq": seq, "x": bx, "y": by, "t": t}
        samples = [{"beacon": wire(b), "rssi": -60 - (seq + 7 * i) % 25, "t": t} for i, b in enumerate(beacons[:3])]
        return {"type": "scans", "seq": seq, "samples": samples}

    acked, kills, reconnects, sent = set(), 0, 0, 0
    headers = {"Authorization": "Bearer " + service.tokens["survey"]}
    killer_times = sorted(rng.uniform(0.2, 0.9) * total for _ in range(args.kills))

    async def session():
        nonlocal sent
        async with connect(service.url("/v1/phone"), additional_headers=headers, max_queue=None) as ws:
            await ws.send(json.dumps({"type": "hello", "phone": "kill-1", "model": "python", "app": "kill-check", "schema": 1, "survey": True, "t": T0}))
            welcome = json.loads(await ws.recv())
            if welcome.get("type") != "welcome":
                raise SystemExit(f"hello refused: {welcome}")
            # Everything not acknowledged, in order, then on.
            pending = [s for s in range(total) if s not in acked]

            async def reader():
                async for text in ws:
                    m = json.loads(text)
                    if m["type"] == "ack":
                        acked.add(m["seq"])
                    elif m["type"] == "error":
                        raise SystemExit(f"error frame: {m}")

            task = asyncio.create_task(reader())
            try:
                for s in pending:
                    await ws.send(json.dumps(message(s)))
                    sent += 1
                    if s % 20 == 0:
                        await asyncio.sleep(0.001)
                    if task.done():
                        break
                deadline = time.time() + 20
                while len(acked) < total and not task.done() and time.time() < deadline:
                    await asyncio.sleep(0.01)
            finally:
                task.cancel()
                try:
                    await task
                except (asyncio.CancelledError, WebSocketException, OSError):
                    pass

    async def killer():
        nonlocal kills
        for at in killer_times:
            while len(acked) < at:
                await asyncio.sleep(0.005)
            await asyncio.sleep(rng.uniform(0, 0.05))
            service.kill()
            kills += 1
            service.start()   # the same port

    kill_task = asyncio.create_task(killer())
    while len(acked) < total:
        try:
            await session()
        except (WebSocketException, OSError, EOFError):
            reconnects += 1
            await asyncio.sleep(0.05)
    await kill_task
    service.stop()
    path = os.path.join(folder, "rec", "kill-1.sqlite")
    db = sqlite3.connect(path)
    rssi = db.execute("SELECT count(*), count(DISTINCT t) FROM rssi_samples").fetchone()
    truth = db.execute("SELECT count(*) FROM ground_truth").fetchone()[0]
    last = db.execute("SELECT last_seq FROM live_session").fetchone()[0]
    db.close()
    scans = sum(1 for s in range(total) if message(s)["type"] == "scans")
    replay = subprocess.run([args.binary, "replay", path, "--estimators", "particle-filter", "--json"], capture_output=True, text=True)
    problems = []
    if rssi[0] != scans * 3 or rssi[1] != scans:
        problems.append(f"readings: {rssi[0]} rows over {rssi[1]} times, expected {scans * 3} over {scans}")
    if truth != total - scans:
        problems.append(f"truth rows: {truth}, expected {total - scans}")
    if last != total - 1:
        problems.append(f"last_seq {last}, expected {total - 1}")
    if kills != args.kills:
        problems.append(f"{kills} kills of {args.kills}")
    if replay.returncode != 0:
        problems.append(f"replay exit {replay.returncode}: {replay.stderr[-500:]}")
    print(json.dumps({"check": "kill", "messages": total, "acknowledged": len(acked), "sent": sent, "kills": kills,
                      "reconnects": reconnects, "readings": rssi[0], "truth": truth, "problems": problems}))
    return not problems


async def abuse_check(args):
    rng = random.Random(args.seed)
    folder = tempfile.mkdtemp(prefix="live-abuse-")
    service = Service(args.binary, args.scenario, folder, ["--max-rate", "100000", "--max-message-bytes", "4096"])
    service.start()
    venue, beacons = beacons_of(service)
    good = wire(beacons[0])
    kinds = {
        "malformed": lambda s: rng.choice(["{", "[]", "null", '{"type":"scans"', '{"type":42}', '{"type":"scans","seq":"x","samples":[]}',
                                           '{"type":"scans","seq":%d,"samples":{}}' % s, "\u00ff" * 5]),
        "too-large": lambda s: json.dumps({"type": "scans", "seq": s, "samples": [{"beacon": good, "rssi": -70, "t": T0}] * 80}),
        "invalid-value": lambda s: rng.choice([json.dumps({"type": "scans", "seq": s, "samples": [{"beacon": good, "rssi": 99, "t": T0 + 0.1}]}),
                                               '{"type":"scans","seq":%d,"samples":[{"beacon":%s,"rssi":NaN,"t":1}]}' % (s, json.dumps(good))]),
        "unknown-beacon": lambda s: json.dumps({"type": "scans", "seq": s, "samples": [{"beacon": {"name": "nobody-%d" % s}, "rssi": -70, "t": T0 + 0.1}]}),
        "forbidden": lambda s: json.dumps({"type": "truth", "seq": s, "x": 1, "y": 1, "t": T0 + 0.1}),
    }
    sent = {k: 0 for k in kinds}
    unauthorized = 0
    headers = {"Authorization": "Bearer " + service.tokens["phone"]}
    n = args.messages
    try:
        async with connect(service.url("/v1/phone"), additional_headers=headers, max_size=None) as ws:
            await ws.send(json.dumps({"type": "hello", "phone": "abuser", "schema": 1, "t": T0}))
            welcome = json.loads(await ws.recv())
            errors = 0

            async def reader():
                nonlocal errors
                async for text in ws:
                    if json.loads(text)["type"] == "error":
                        errors += 1

            task = asyncio.create_task(reader())
            names = list(kinds)
            for s in range(n - 100):
                kind = names[s % len(names)]
                await ws.send(kinds[kind](s))
                sent[kind] += 1
            deadline = time.time() + 30
            while errors < n - 100 and time.time() < deadline:
                await asyncio.sleep(0.05)
            task.cancel()
        for _ in range(100):
            try:
                async with connect(service.url("/v1/phone"), additional_headers={"Authorization": "Bearer wrong-token-%d" % rng.randrange(10**9)}) as ws:
                    pass
            except InvalidStatus as e:
                unauthorized += e.response.status_code == 401
        status, health = service.get("/healthz")
        _, metrics = service.get("/metrics")
    finally:
        service.stop()
    counted = {k: int(float(re.search(r'indoorlab_rejected_messages_total\{reason="%s"\} ([0-9.e+]+)' % k, metrics).group(1))) for k in list(kinds) + ["unauthorized"]}
    db = sqlite3.connect(os.path.join(folder, "rec", "abuser.sqlite"))
    stored = sum(db.execute(f"SELECT count(*) FROM {t}").fetchone()[0] for t in ("rssi_samples", "range_samples", "heading_samples", "step_samples", "ground_truth"))
    db.close()
    problems = []
    if status != 200 or health.strip() != "ok":
        problems.append(f"/healthz after the abuse: {status} {health!r}")
    for k in kinds:
        if counted[k] != sent[k]:
            problems.append(f"{k}: sent {sent[k]}, counted {counted[k]}")
    if unauthorized != 100 or counted["unauthorized"] != 100:
        problems.append(f"unauthorized: 100 tried, {unauthorized} got 401, {counted['unauthorized']} counted")
    if stored != 0:
        problems.append(f"{stored} rows stored from refused messages")
    print(json.dumps({"check": "abuse", "messages": n, "sent": sent, "counted": counted, "errorFrames": errors, "stored": stored, "problems": problems}))
    return not problems


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("mode", choices=["schema", "kill", "abuse"])
    p.add_argument("--binary", required=True)
    p.add_argument("--scenario", default="open-hall")
    p.add_argument("--kills", type=int, default=10)
    p.add_argument("--messages", type=int, default=None, help="kill: 3000, abuse: 10000")
    p.add_argument("--seed", type=int, default=1)
    args = p.parse_args()
    if args.messages is None:
        args.messages = 10000 if args.mode == "abuse" else 3000
    ok = asyncio.run({"schema": schema_check, "kill": kill_check, "abuse": abuse_check}[args.mode](args))
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
