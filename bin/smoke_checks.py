"""What bin/smoke-production checks, through nginx only, once the stack is up (see that script's docstring)."""

from __future__ import annotations

import io
import json
import re
import time
from datetime import date, timedelta
from typing import Any

from smoke_client import Client, SmokeFailure, check, totp

__all__ = ["run_checks"]

CLIENT_ADDRESS = "127.0.0.3"  # the person's machine; nginx and gunicorn are on 127.0.0.1
FORGED = "203.0.113.66"  # what a client writes into X-Forwarded-For itself


def say(words: str) -> None:
    print(f"  ok  {words}", flush=True)


def _liveness(client: Client) -> Any:
    """/healthz over plain HTTP; None while nginx is not listening yet (just started: refused)."""
    try:
        return client.get("/healthz", plain=True, host="10.20.30.40")
    except ConnectionRefusedError:
        return None


def probes(client: Client, stack: Any) -> None:
    deadline = time.monotonic() + 60
    live = _liveness(client)
    while (live is None or live.status != 200) and time.monotonic() < deadline:  # nginx or gunicorn still starting
        check(not stack.died(), f"a process died: {stack.died()}")
        time.sleep(1)
        live = _liveness(client)
    check(live is not None, "nginx never listened on its plain-HTTP port within a minute")
    check(live.status == 200, f"/healthz over plain HTTP with an IP Host answered {live.status}: {live.text[:300]}")
    say("/healthz answers 200 over plain HTTP to an IP-address Host")
    deadline = time.monotonic() + 150
    ready = client.get("/readyz", plain=True, host="10.20.30.40")
    while ready.status != 200 and time.monotonic() < deadline:
        check(not stack.died(), f"a process died: {stack.died()}")
        time.sleep(3)
        ready = client.get("/readyz", plain=True, host="10.20.30.40")
    check(ready.status == 200, f"/readyz never became ready: {ready.status} {ready.text[:500]}")
    say(f"/readyz is ready (database, Redis, a worker and beat have ticked): {'; '.join(ready.text.split(chr(10)))[:160]}")
    other = client.get("/accounts/login/", plain=True)
    check(other.status == 301 and other.headers["Location"].startswith("https://"),
          f"plain HTTP for a page answered {other.status}, not a redirect to https")
    say("any other plain-HTTP request is sent to https")


def sign_in(client: Client, username: str, password: str, secret: str = "") -> Any:
    fields = {"username": username, "password": password}
    if secret:
        fields["otp_token"] = totp(secret)
    return client.post_form("/accounts/login/", fields, headers={"X-Forwarded-For": FORGED})


def lock_out_sees_the_client(client: Client, clerk: tuple[str, str, str], officer: Client) -> None:
    username = clerk[0]
    for _ in range(5):
        refused = sign_in(client, username, "not-the-password")
        check(refused.status in {200, 429}, f"a wrong password answered {refused.status}")
    locked = sign_in(client, username, clerk[1], clerk[2])
    check(locked.status == 429, f"after 5 wrong passwords the right one answered {locked.status}, not the lock-out")
    say("five wrong passwords lock the username (429), even with the right password next")
    trail = officer.get(f"/audit/export.csv?date_from={date.today() - timedelta(days=1):%Y-%m-%d}").text
    lines = [line for line in trail.splitlines() if username in line]
    check(any(CLIENT_ADDRESS in line for line in lines),
          f"the audit trail does not show the client's address {CLIENT_ADDRESS} for {username}: {lines[:4]}")
    check(not any(FORGED in line or "127.0.0.1" in line for line in lines),
          f"the audit trail shows a forged or the proxy's address: {lines[:4]}")
    say(f"the audit trail records the sign-in failures and the lock from {CLIENT_ADDRESS}, not nginx's or the forged "
        "X-Forwarded-For")


def produce_report(officer: Client, quarter: tuple[date, date], stack: Any) -> bytes:
    start, end = quarter
    made = officer.post_form("/reports/quarterly-coupons/produce/", {"start": f"{start:%Y-%m-%d}",
                                                                      "end": f"{end:%Y-%m-%d}"})
    check(made.status in {302, 303}, f"producing the quarterly report answered {made.status}: {made.text[:600]}")
    found = re.search(r"/reports/runs/(\d+)/", made.headers["Location"])
    check(found, f"producing the report went to {made.headers['Location']}, not its run")
    assert found is not None
    run = found.group(1)
    deadline = time.monotonic() + 120
    state: dict[str, Any] = {}
    while time.monotonic() < deadline:
        state = json.loads(officer.get(f"/reports/runs/{run}/progress.json").text)
        if not state.get("active"):
            break
        time.sleep(1)
    check(not state.get("active") and not state.get("error"),
          f"the report did not finish: {state}")
    pdf = officer.get(f"/reports/runs/{run}/files/pdf")
    check(pdf.status == 200 and pdf.body.startswith(b"%PDF"), f"the report's PDF answered {pdf.status}")
    succeeded = re.compile(r"produce_report\[[0-9a-f-]{36}\] succeeded")
    ran_on = [name for name in ("worker1", "worker2") if succeeded.search(stack.log(name))]
    check(len(ran_on) == 1, f"the report job ran on {ran_on or 'no worker'}")
    say(f"the quarterly report of {start:%d %b}–{end:%d %b %Y} was produced by {ran_on[0]} and downloaded "
        f"({len(pdf.body):,} bytes)")
    return pdf.body


def logo_everywhere(officer: Client, pdf: bytes) -> None:
    page = officer.get("/").text
    found = re.search(r'<img src="(/media/[^"]+)"', page)
    check(found, "the page header shows no logo")
    assert found is not None
    served = [officer.get(found.group(1)) for _ in range(4)]  # nginx's round robin: both web instances
    check(all(s.status == 200 and s.body.startswith(b"\x89PNG") for s in served),
          f"the logo was not served by every web instance: {[s.status for s in served]}")
    from pypdf import PdfReader

    images = list(PdfReader(io.BytesIO(pdf)).pages[0].images)
    check(images, "the report's PDF, made on a worker host, does not carry the logo")
    say("the logo stored on host 1 is served by both web instances and printed by the worker's PDF")
    static = re.search(r'href="(/static/[^"]+\.css)"', page)
    check(static, "the page links no stylesheet")
    assert static is not None
    css = officer.get(static.group(1))
    check(css.status == 200 and "immutable" in " ".join(css.headers.get_all("Cache-Control") or []),
          f"nginx did not serve {static.group(1)} as a static file: {css.status}")
    say("nginx serves the collected static files")


def beat_once(stack: Any) -> None:
    time.sleep(5)  # the last tick sent reaches a worker
    sent = len(re.findall(r"Sending due task health-tick", stack.log("beat")))
    ran: list[str] = []
    for name in ("worker1", "worker2"):
        ran += re.findall(r"compliance\.tasks\.health_tick\[([0-9a-f-]{36})\] succeeded", stack.log(name))
    check(sent >= 1, "beat sent no health tick")
    check(len(ran) == len(set(ran)), f"a health tick ran twice: {sorted(ran)}")
    check(len(ran) == sent, f"beat sent {sent} health ticks and the workers ran {len(ran)}")
    say(f"beat sent the health tick {sent} time(s) and each ran exactly once, on one of the two workers")


def json_logs(stack: Any, username: str) -> None:
    lines = []
    for raw in (stack.log("web1") + stack.log("web2")).splitlines():
        try:
            lines.append(json.loads(raw))
        except ValueError:
            continue
    check(lines, "the web processes wrote no JSON log line")
    mine = [line for line in lines if line.get("logger") == "compliance.access" and line.get("user") == username]
    check(mine, f"no access line of the web processes names the user {username}")
    first = mine[-1]
    check({"time", "level", "request_id", "facility", "path", "status"} <= set(first)
          and first["request_id"] not in {"", "-"} and first["facility"] not in {"", "-"}
          and str(first["time"]).endswith("+00:00"), f"an access line lacks what it should say: {first}")
    say(f"the web processes log JSON lines with the request id, user and facility ({len(lines)} lines)")


def run_checks(stack: Any, client: Client, *, officer: tuple[str, str, str], clerk: tuple[str, str, str],
               quarter: tuple[date, date]) -> None:
    probes(client, stack)
    compliance = client.as_from("127.0.0.4")
    signed = compliance.follow(sign_in(compliance, *officer))
    check(signed.status == 200 and "Sign out" in signed.text, f"the compliance officer could not sign in "
                                                               f"({signed.status}): {signed.text[:400]}")
    say(f"the compliance officer {officer[0]} signed in with password and code, over https through nginx")
    lock_out_sees_the_client(client, clerk, compliance)
    pdf = produce_report(compliance, quarter, stack)
    logo_everywhere(compliance, pdf)
    beat_once(stack)
    json_logs(stack, officer[0])
    if stack.died():
        raise SmokeFailure(f"a process died during the checks: {stack.died()}")
