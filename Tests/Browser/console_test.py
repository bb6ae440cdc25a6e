"""The web console in a real browser: headless Chromium driven by Selenium against `tidings demo --keep`.

Each check prints a line; the first failure stops the run with exit status 1. The demo (tidingsd, the APNs
emulator, a media server and simulated devices that run the SDK) is started here and stopped at the end,
whatever happened.
"""

import argparse
import base64
import hashlib
import hmac
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import struct
import time
import urllib.request
import uuid

from selenium import webdriver
from selenium.common.exceptions import StaleElementReferenceException, TimeoutException
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.support import expected_conditions as EC
from selenium.webdriver.support.ui import Select, WebDriverWait


class Demo:
    """`tidings demo --keep --json`: read its report, keep it running, stop it with SIGINT."""

    def __init__(self, bin_dir):
        self.bin_dir = bin_dir
        self.process = subprocess.Popen(
            [os.path.join(bin_dir, "tidings"), "demo", "--keep", "--json", "--devices", "12", "--seed", "7"],
            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
        text = ""
        deadline = time.monotonic() + 150
        while time.monotonic() < deadline:
            line = self.process.stdout.readline()
            if not line:
                raise RuntimeError("tidings demo ended before printing its report")
            text += line
            if line.startswith("}"):
                break
        self.report = json.loads(text)
        server = self.report["server"]
        self.console = server["console"]
        self.api = server["api"].rstrip("/")
        self.server_key = server["server_key"]
        self.app_key = server["app_key"]
        self.password = server["console_password"]
        self.data_directory = server["data_directory"]

    def api_get(self, path):
        request = urllib.request.Request(self.api + path, headers={"Authorization": f"Bearer {self.server_key}"})
        with urllib.request.urlopen(request, timeout=10) as response:
            return json.load(response)

    def api_post(self, path, body, key=None):
        request = urllib.request.Request(
            self.api + path, data=json.dumps(body).encode(), method="POST",
            headers={"Authorization": f"Bearer {key or self.server_key}", "Content-Type": "application/json"})
        with urllib.request.urlopen(request, timeout=10) as response:
            return json.load(response)

    def api_put(self, path, body):
        request = urllib.request.Request(
            self.api + path, data=json.dumps(body).encode(), method="PUT",
            headers={"Authorization": f"Bearer {self.server_key}", "Content-Type": "application/json"})
        with urllib.request.urlopen(request, timeout=10) as response:
            return json.load(response)

    def stop(self):
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGINT)
            try:
                self.process.wait(timeout=20)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        shutil.rmtree(getattr(self, "data_directory", ""), ignore_errors=True)


def check(condition, message):
    if not condition:
        raise AssertionError(message)
    print(f"ok - {message}", flush=True)


class Console:
    def __init__(self, url, screenshots):
        options = webdriver.ChromeOptions()
        options.binary_location = shutil.which("chromium")
        for argument in ["--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--window-size=1280,1000",
                         "--disable-gpu"]:
            options.add_argument(argument)
        self.profile = tempfile.mkdtemp(prefix="tidings-chromium-")
        options.add_argument(f"--user-data-dir={self.profile}")
        options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
        self.driver = webdriver.Chrome(options=options, service=Service(shutil.which("chromedriver")))
        self.url = url
        self.screenshots = screenshots
        self.wait = WebDriverWait(self.driver, 30)

    def visible(self, css):
        return self.wait.until(EC.visibility_of_element_located((By.CSS_SELECTOR, css)))

    def text_in(self, css, text, timeout=30):
        WebDriverWait(self.driver, timeout).until(EC.text_to_be_present_in_element((By.CSS_SELECTOR, css), text))

    def sign_in(self, name, password):
        self.driver.get(self.url)
        self.visible("#sign-in-name").send_keys(name)
        self.driver.find_element(By.ID, "sign-in-password").send_keys(password)
        self.driver.find_element(By.CSS_SELECTOR, "#sign-in-form button[type=submit]").click()
        self.visible("#top")
        self.text_in("#who", name)

    def go(self, hash_route, ready_css):
        self.driver.execute_script("location.hash = arguments[0]", hash_route)
        return self.visible(ready_css)

    def fetch(self, method, path, body=None, csrf=False):
        """A request from inside the page (same origin, with the session cookie); returns the status."""
        return self.driver.execute_async_script(
            """
            const [method, path, body, csrf, done] = arguments;
            (async () => {
              const headers = { "Content-Type": "application/json",
                                "X-Tidings-App": localStorage.getItem("tidings.app") || "" };
              if (csrf) {
                const me = await fetch("/v1/session");
                if (me.ok) headers["X-CSRF-Token"] = (await me.json()).csrf_token;
              }
              const response = await fetch(path, { method, headers, body: body ? JSON.stringify(body) : undefined });
              done(response.status);
            })().catch((error) => done(String(error)));
            """, method, path, body, csrf)

    def record_requests(self):
        """From now on, every fetch the page makes is listed in `window.tidingsRequests` as "METHOD path", and
        with its body in `window.tidingsBodies`."""
        self.driver.execute_script(
            """
            window.tidingsRequests = [];
            window.tidingsBodies = [];
            if (!window.tidingsFetch) {
              window.tidingsFetch = window.fetch;
              window.fetch = (path, init) => {
                const request = `${init?.method ?? "GET"} ${path}`;
                window.tidingsRequests.push(request);
                window.tidingsBodies.push([request, init?.body ?? null]);
                return window.tidingsFetch(path, init);
              };
            }
            """)

    def requests(self):
        return self.driver.execute_script("return window.tidingsRequests")

    def bodies(self, request):
        """The JSON bodies of the recorded requests that are `request` ("POST /v1/messages"), in order."""
        recorded = self.driver.execute_script("return window.tidingsBodies")
        return [json.loads(body) for name, body in recorded if name == request and body]

    def errors(self):
        """Errors in the browser's console since the last call (a failed request is one)."""
        return [entry["message"] for entry in self.driver.get_log("browser") if entry["level"] == "SEVERE"]

    def shot(self, name):
        self.driver.save_screenshot(os.path.join(self.screenshots, f"{name}.png"))

    def close(self):
        self.driver.quit()
        shutil.rmtree(self.profile, ignore_errors=True)


def run(demo, console, bin_dir):
    driver = console.driver
    # Security headers on the console's own files.
    with urllib.request.urlopen(demo.console, timeout=10) as response:
        policy = response.headers["Content-Security-Policy"]
        check("script-src 'self'" in policy and "frame-ancestors 'none'" in policy, "the console is served under a strict CSP")
        check(response.headers["X-Content-Type-Options"] == "nosniff", "the console's files are nosniff")

    console.sign_in("demo", demo.password)
    check("demo · admin" in driver.find_element(By.ID, "who").text, "an admin signs in")
    cookie = driver.get_cookie("tidings_session")
    check(cookie and cookie["httpOnly"] and cookie["sameSite"] == "Strict", "the session cookie is HttpOnly, SameSite=Strict")
    check(driver.execute_script("return document.cookie.includes('tidings_session')") is False,
          "page scripts cannot read the session cookie")
    console.text_in("#view h1", "Overview")
    console.visible(".chart svg")
    console.shot("overview")

    # Opening Compose lints nothing until something is written, so the empty form logs no error.
    console.errors()
    console.record_requests()
    console.go("#/compose", "#compose-form")
    console.text_in("#audience-count", "Reaches 12 installation(s)")
    console.visible("#lint-waiting")
    time.sleep(1)
    requests = console.requests()
    check(not any("/v1/lint" in request for request in requests), f"opening Compose lints nothing yet: {requests}")
    errors = console.errors()
    check(not errors, f"opening Compose logs no error: {errors}")

    # Compose a rich push and send it to every simulated device.
    form = driver.find_element(By.ID, "compose-form")
    form.find_element(By.NAME, "title").send_keys("Weekend picks")
    form.find_element(By.NAME, "subtitle").send_keys("Chosen for you")
    form.find_element(By.NAME, "body").send_keys("Three new arrivals, 20% off until Sunday.")
    form.find_element(By.NAME, "link").send_keys("tidingsdemo://picks/weekend")
    form.find_element(By.NAME, "sound").send_keys("default")
    for index, title in enumerate(["Show me", "Later"]):
        form.find_element(By.XPATH, "//button[text()='Add a button']").click()
        fields = form.find_elements(By.CSS_SELECTOR, "fieldset fieldset input")
        fields[2 * index].send_keys(title)
    console.text_in("#preview", "Weekend picks")
    console.text_in("#preview", "Show me")
    requests = console.requests()
    check(any(request == "POST /v1/lint" for request in requests), "what is written is linted")
    errors = console.errors()
    check(not errors, f"linting what is written logs no error: {errors}")
    console.text_in("#audience-count", "Reaches 12 installation(s)")
    # An audience expression counts live too, and a mistake says where it is.
    form.find_element(By.CSS_SELECTOR, "input[name=audience][value=audience]").click()
    detail = form.find_element(By.NAME, "audience_detail")
    detail.send_keys("platform = ios and user_id = user-3")
    console.text_in("#audience-count", "Reaches 1 installation(s)")
    detail.clear()
    detail.send_keys("platform = ios and")
    console.text_in("#audience-count", "column")
    check(True, "an audience expression is counted live and a malformed one is explained")
    detail.clear()
    form.find_element(By.CSS_SELECTOR, "input[name=audience][value=all]").click()
    console.text_in("#audience-count", "Reaches 12 installation(s)")
    driver.execute_script("window.scrollTo(0, 0)")
    check(True, "the lock-screen preview and the live audience count follow the form")
    console.shot("compose")
    check(not driver.find_element(By.ID, "send-now").is_enabled(), "Send waits for a preview of what is written")
    # One person has turned notifications off, so the preview and the send skip someone, for a reason.
    muted = demo.api_get("/v1/installations?limit=12")["installations"][-1]["installation_id"]
    consents = demo.api_get(f"/v1/installations/{muted}")["consents"]
    demo.api_put(f"/v1/installations/{muted}", {"consents": {**consents, "notifications": False}})
    previewed, report = preview_campaign(demo, console)
    check(report["reach"]["skipped"]["consent"] == 1, f"the preview skips the person without consent ({report['reach']['skipped']['consent']})")
    console.record_requests()
    driver.find_element(By.ID, "send-now").click()
    confirmation = WebDriverWait(driver, 10).until(EC.alert_is_present())
    question = confirmation.text
    confirmation.accept()
    check(f"Send to {report['reach']['would_send']} installation(s)" in question,
          f"sending asks with the preview's reach: {question}")
    WebDriverWait(driver, 15).until(lambda d: d.execute_script("return location.hash").startswith("#/messages/msg_"))
    message_id = driver.execute_script("return location.hash").split("/")[-1]
    check(True, f"the push was sent as {message_id}")
    sent = console.bodies("POST /v1/messages")
    check(sent == [previewed], f"the send posts exactly the request previewed ({sorted(previewed)})")
    def delivered_and_opened(d):
        # The funnel's third and fourth rows, once the table has them: it is drawn, then redrawn as counts
        # arrive, so it may have fewer rows, or rows replaced, at the moment it is read.
        rows = d.find_elements(By.CSS_SELECTOR, ".funnel tbody tr")
        if len(rows) < 4:
            return False
        cells = [row.find_elements(By.TAG_NAME, "td") for row in rows[2:4]]
        return all(len(row) > 2 and int(row[2].text or "0") > 0 for row in cells)

    try:
        WebDriverWait(driver, 90, ignored_exceptions=(StaleElementReferenceException,)).until(delivered_and_opened)
    except TimeoutException:
        raise AssertionError("the funnel did not fill in: " + driver.find_element(By.CSS_SELECTOR, ".funnel").text)
    rows = driver.find_elements(By.CSS_SELECTOR, ".funnel tbody tr")
    counts = {row.find_elements(By.TAG_NAME, "td")[0].text: row.find_elements(By.TAG_NAME, "td")[2].text for row in rows}
    check(counts["Targets"] == "12", f"the funnel fills in while devices report: {counts}")
    console.shot("message")
    counts_match_preview(demo, message_id, report)
    demo.api_put(f"/v1/installations/{muted}", {"consents": consents})
    button_openers(demo, console)
    split_conversions(demo, console)

    # Schedule a localized split test for tomorrow, see it scheduled in the list, then cancel it.
    console.go("#/compose", "#compose-form")
    form = driver.find_element(By.ID, "compose-form")
    form.find_element(By.NAME, "title").send_keys("Tomorrow's picks")
    form.find_element(By.NAME, "body").send_keys("New arrivals at nine.")
    driver.find_element(By.ID, "add-language").click()
    form.find_element(By.NAME, "language_0").send_keys("ja")
    form.find_element(By.NAME, "language_0_title").send_keys("明日のおすすめ")
    driver.find_element(By.ID, "split-test").click()
    form.find_element(By.NAME, "variant_b_title").send_keys("Picks for tomorrow")
    control = form.find_element(By.NAME, "control_percent")
    control.clear()
    control.send_keys("10")
    form.find_element(By.CSS_SELECTOR, "input[name=when][value=at]").click()
    driver.execute_script(
        """const input = arguments[0];
           const tomorrow = new Date(Date.now() + 86400000);
           const pad = (n) => String(n).padStart(2, "0");
           input.value = `${tomorrow.getFullYear()}-${pad(tomorrow.getMonth() + 1)}-${pad(tomorrow.getDate())}T09:00`;
           input.dispatchEvent(new Event("input", { bubbles: true }));
           input.dispatchEvent(new Event("change", { bubbles: true }));""",
        form.find_element(By.NAME, "send_time"))
    console.text_in("#send-now", "Schedule")
    driver.find_element(By.ID, "preview-send").click()
    console.visible("#dry-run-variants")
    variants = [row.find_elements(By.TAG_NAME, "td")[0].text
                for row in driver.find_elements(By.CSS_SELECTOR, "#dry-run-variants tbody tr")]
    check(variants == ["a", "b", "control"], f"the preview of a split test lists each variant and the control group: {variants}")
    console.text_in("#dry-run-duration", "Sending starts")
    check(len(driver.find_elements(By.CSS_SELECTOR, "#dry-run .rendering")) == 4,
          "the preview renders each variant in each language (a and b, default and ja)")
    console.shot("compose-scheduled")
    driver.find_element(By.ID, "send-now").click()
    WebDriverWait(driver, 10).until(EC.alert_is_present()).accept()
    WebDriverWait(driver, 15).until(
        lambda d: d.execute_script("return location.hash").startswith("#/messages/msg_")
        and d.execute_script("return location.hash").split("/")[-1] != message_id)
    scheduled_id = driver.execute_script("return location.hash").split("/")[-1]
    console.text_in("#view", "State: scheduled")
    console.text_in("#view", "sends from")
    stored = demo.api_get(f"/v1/messages/{scheduled_id}")
    check(stored["state"] == "scheduled" and stored["variants"] == ["a", "b"] and "resolve_at" in stored,
          f"the console scheduled a split test: {stored.get('state')}, variants {stored.get('variants')}")
    console.go("#/messages", "#message-state")
    Select(driver.find_element(By.ID, "message-state")).select_by_value("scheduled")
    console.text_in("#view table", "Tomorrow's picks")
    check(len(driver.find_elements(By.CSS_SELECTOR, "#view tbody tr")) == 1, "the state filter shows the scheduled message only")
    console.go(f"#/messages/{scheduled_id}", ".funnel")
    driver.find_element(By.XPATH, "//button[text()='Cancel sending']").click()
    WebDriverWait(driver, 10).until(EC.alert_is_present()).accept()
    console.text_in("#view", "State: cancelled")
    check(demo.api_get(f"/v1/messages/{scheduled_id}")["state"] == "cancelled", "cancelling a scheduled message stops it")
    preview_local_time(demo, console)
    journey_id = journey(demo, console)

    # A local-time message shows its due times: twelve hours ahead read as UTC is resolved at once, and waits
    # in every zone behind UTC+12; a fallback zone gives the devices without one a due time too.
    local_time = time.strftime("%Y-%m-%dT%H:%M", time.gmtime(time.time() + 12 * 3600))
    local = demo.api_post("/v1/messages", {"target": {"all": True}, "content": {"title": "Local sale"},
                                          "local_time": local_time, "fallback_time_zone": "Asia/Tokyo"})
    console.go(f"#/messages/{local['message_id']}", "#local-schedule")
    console.text_in("#local-schedule h2", f"Local time {local_time}")
    console.text_in("#local-schedule", "Next due")
    console.text_in("#local-schedule table", "UTC offset")
    console.shot("message-local-schedule")

    # Find a device by its id and read its timeline.
    installation = demo.api_get("/v1/installations?limit=1")["installations"][0]["installation_id"]
    console.go("#/devices", "input[name=q]").send_keys(installation + "\n")
    console.visible(f"a[href='#/devices/{installation}']").click()
    console.text_in("#view", "Timeline")
    console.text_in("#view table caption", "Events and deliveries")
    console.text_in("#view", "delivery: sent")
    check("…" in driver.find_element(By.ID, "view").text, "the device page masks its tokens")
    check(True, f"device {installation} shows its timeline with the delivery")
    console.shot("device")

    console.go("#/events", "#view table")
    console.shot("events")
    console.go("#/settings", "#view section")
    console.text_in("#view", "Audit log")
    console.text_in("#view", "POST /v1/messages")
    check(True, "the audit log shows the send")
    console.shot("settings")

    # A write without the CSRF token is refused, with it the same session may write.
    status = console.fetch("POST", "/v1/messages", {"target": {"all": True}, "content": {"title": "no token"}})
    check(status == 403, f"a CSRF-less write is refused ({status})")
    status = console.fetch("POST", "/v1/lint", {"content": {"title": "with token"}}, csrf=True)
    check(status == 200, f"the same write path with the token is accepted ({status})")

    # Logout ends the session on the server, not only in the page.
    driver.find_element(By.ID, "sign-out").click()
    console.visible("#sign-in-name")
    status = console.fetch("GET", "/v1/session")
    check(status == 401, f"after sign-out the session is gone ({status})")

    # A viewer reads but cannot send: made by the admin in Settings, with a password shown once.
    console.sign_in("demo", demo.password)
    console.go("#/settings", "#operator-form")
    form = driver.find_element(By.ID, "operator-form")
    form.find_element(By.NAME, "operator_name").send_keys("vera")
    Select(form.find_element(By.NAME, "operator_role")).select_by_value("viewer")
    form.find_element(By.CSS_SELECTOR, "button[type=submit]").click()
    viewer_password = console.visible("#new-operator-password").text
    check(len(viewer_password) == 20, "an admin adds a viewer in Settings and sees the password once")
    console.text_in("#operators table", "vera")
    console.shot("settings-operators")
    driver.find_element(By.ID, "sign-out").click()
    console.visible("#sign-in-name")
    console.sign_in("vera", viewer_password)
    console.go("#/compose", "#compose-form")
    check(not driver.find_element(By.ID, "send-now").is_enabled(), "a viewer sees Send disabled")
    check(not driver.find_element(By.ID, "preview-send").is_enabled(),
          "a viewer cannot preview a send, which the server allows only to those who may send")
    status = console.fetch("POST", "/v1/messages", {"target": {"all": True}, "content": {"title": "viewer"}}, csrf=True)
    check(status == 403, f"a viewer's send is refused by the server ({status})")
    check(not driver.find_element(By.CSS_SELECTOR, '#nav a[href="#/events"]').is_displayed(),
          "a viewer is not shown the Events page")
    status = console.fetch("GET", "/v1/events?limit=10")
    check(status == 403, f"a viewer cannot list or export events, personal data in bulk ({status})")
    console.go(f"#/messages/{message_id}", ".funnel")
    check(True, "a viewer reads the message's funnel")
    console.go("#/journeys", "#view table")
    check(not driver.find_elements(By.ID, "new-journey"), "a viewer is not offered the journey builder")
    console.go(f"#/journeys/{journey_id}", "#journey-steps table")
    check(not driver.find_elements(By.CSS_SELECTOR, "#journey-start, #journey-pause, #journey-archive, #journey-edit"),
          "a viewer reads a journey's numbers, with no button to start, pause, archive or edit it")

    # Phone-sized and dark: the overview still lays out.
    driver.set_window_size(390, 844)
    driver.execute_cdp_cmd("Emulation.setEmulatedMedia",
                           {"features": [{"name": "prefers-color-scheme", "value": "dark"}]})
    console.go("#/overview", ".chart svg")
    console.shot("overview-phone-dark")
    width = driver.execute_script("return document.documentElement.scrollWidth")
    check(width <= 400, f"the overview fits a phone's width ({width}px)")


def journey(demo, console):
    """Build a journey in the console (an add_to_cart trigger, a wait, a send, an exit step, leaving on a
    purchase), see a bad step's error beside it and fix it, start it, then post an add_to_cart for a registered
    installation and watch the journey's page count the person in, then the push sent after the wait."""
    driver = console.driver
    console.go("#/journeys", "#new-journey").click()
    form = console.visible("#journey-form")
    form.find_element(By.NAME, "journey_name").send_keys("Browser cart")
    form.find_element(By.NAME, "trigger_event").send_keys("add_to_cart")
    form.find_element(By.NAME, "exit_events").send_keys("purchase")
    # A new journey starts as a wait and a send; the wait is made 0 seconds, which the contract refuses.
    amount = form.find_element(By.NAME, "step_0_amount")
    amount.clear()
    amount.send_keys("0")
    Select(form.find_element(By.NAME, "step_0_unit")).select_by_value("seconds")
    form.find_element(By.NAME, "step_1_title").send_keys("Your cart misses you")
    form.find_element(By.NAME, "step_1_body").send_keys("It is all still there.")
    Select(driver.find_element(By.ID, "new-step-type")).select_by_value("exit")
    driver.find_element(By.ID, "add-step").click()
    check(len(driver.find_elements(By.CSS_SELECTOR, "#journey-steps-builder > li")) == 3, "a step is added to the list")
    driver.find_element(By.ID, "journey-validate").click()
    console.text_in("#journey-result", "problem(s)")
    steps = driver.find_elements(By.CSS_SELECTOR, "#journey-steps-builder > li")
    beside = [item.text for item in steps[0].find_elements(By.CSS_SELECTOR, ".step-errors li")]
    check(beside and all(text.startswith("steps[0]") for text in beside)
          and not any(item.find_elements(By.CSS_SELECTOR, ".step-errors") for item in steps[1:]),
          f"Validate shows the bad wait's error beside that step: {beside}")
    driver.execute_script("arguments[0].scrollIntoView()", steps[0])
    console.shot("journey-builder-error")
    amount = driver.find_element(By.NAME, "step_0_amount")
    amount.clear()
    amount.send_keys("1")
    driver.find_element(By.ID, "journey-validate").click()
    console.text_in("#journey-result", "Valid")
    check(not driver.find_elements(By.CSS_SELECTOR, ".step-errors"), "fixed, the journey validates")
    driver.execute_script("window.scrollTo(0, 0)")
    console.shot("journey-builder")

    console.record_requests()
    driver.find_element(By.ID, "journey-save").click()
    WebDriverWait(driver, 15).until(
        lambda d: d.execute_script("return /^#\\/journeys\\/[^/]+$/.test(location.hash) && location.hash !== '#/journeys/new'"))
    journey_id = driver.execute_script("return decodeURIComponent(location.hash.split('/')[2])")
    saved = console.bodies("POST /v1/journeys")
    check(len(saved) == 1 and saved[0]["trigger"] == {"event": "add_to_cart"} and saved[0]["exit"] == [{"event": "purchase"}]
          and [step["type"] for step in saved[0]["steps"]] == ["wait", "send", "exit"]
          and saved[0]["steps"][0]["duration"] == 1, f"Save creates the journey as built: {saved}")
    console.text_in("#journey-state", "State: draft")
    driver.find_element(By.ID, "journey-start").click()
    console.text_in("#journey-state", "State: active")
    check(demo.api_get(f"/v1/journeys/{journey_id}")["state"] == "active", f"Start makes journey {journey_id} active")

    installation = demo.api_get("/v1/installations?limit=1")["installations"][0]["installation_id"]
    receipts = demo.api_post("/v1/events", {"events": [{
        "event_id": str(uuid.uuid4()), "type": "add_to_cart", "occurred_at": int(time.time() * 1000),
        "installation_id": installation, "platform": "ios"}]})["receipts"]
    check(receipts[0]["status"] == "accepted", "an add_to_cart of a registered installation is accepted")

    def step_numbers(d):
        numbers = {}
        for row in d.find_elements(By.CSS_SELECTOR, "#journey-steps tbody tr"):
            cells = [cell.text for cell in row.find_elements(By.TAG_NAME, "td")]
            numbers[cells[0]] = dict(zip(["type", "what", "entered", "waiting", "sent", "skipped", "delivered",
                                          "opened", "converted", "exited"], cells[1:]))
        return numbers

    def reaches(condition):
        try:
            return WebDriverWait(driver, 30, poll_frequency=0.2, ignored_exceptions=(StaleElementReferenceException,)).until(
                lambda d: (lambda numbers: numbers if condition(numbers) else False)(step_numbers(d)))
        except TimeoutException:
            raise AssertionError(f"the journey's numbers did not move: {step_numbers(driver)}")

    names = [step["id"] for step in saved[0]["steps"]]
    numbers = reaches(lambda numbers: numbers.get(names[0], {}).get("entered") == "1")
    check(True, f"the journey page counts the person in at the wait: {numbers[names[0]]}")
    # A run of a user sends to each of the user's installations: one or more pushes.
    numbers = reaches(lambda numbers: int(numbers.get(names[1], {}).get("sent") or 0) >= 1)
    check(numbers[names[1]]["entered"] == "1", f"after the wait the send step counts the push sent: {numbers[names[1]]}")
    console.shot("journey")

    # Editing loads the stored definition into the builder and saves a new version.
    driver.find_element(By.ID, "journey-edit").click()
    title = console.visible("#journey-form input[name=step_1_title]")
    check(title.get_attribute("value") == "Your cart misses you"
          and driver.find_element(By.NAME, "step_0_amount").get_attribute("value") == "1",
          "Edit opens the builder with the journey as stored")
    title.clear()
    title.send_keys("Still in your cart")
    driver.find_element(By.ID, "journey-save").click()
    console.text_in("#journey-state", "version 2")
    stored = demo.api_get(f"/v1/journeys/{journey_id}")
    check(stored["version"] == 2 and stored["definition"]["steps"][1]["message"]["content"]["title"] == "Still in your cart",
          "saving an edit stores a new version")
    return journey_id


def shown_number(driver, css):
    return int("".join(character for character in driver.find_element(By.CSS_SELECTOR, css).text if character.isdigit()))


def preview_campaign(demo, console):
    """The Preview step on the composed form: the page shows the server's dry run of exactly the request it
    would send (asked again here with the server key), a rendering with its device previews, an over-limit
    payload flagged, and an edit after the preview that must be previewed again. Returns the request previewed
    (without `dry_run`) and the server's answer to it."""
    driver = console.driver
    form = driver.find_element(By.ID, "compose-form")
    console.record_requests()
    driver.find_element(By.ID, "preview-send").click()
    console.visible("#dry-run-would-send")
    posted = console.bodies("POST /v1/messages")
    check(len(posted) == 1 and posted[0].get("dry_run") is True, "Preview posts the composed message with dry_run")
    report = demo.api_post("/v1/messages", posted[0])
    check(report["dry_run"] is True and report["audience"]["matched"] == 12, "the server answers the same request as a dry run")
    reach = report["reach"]
    shown = {name: shown_number(driver, f"#dry-run-{name}") for name in ("matched", "would-send", "skipped")}
    expected = {"matched": report["audience"]["matched"], "would-send": reach["would_send"],
                "skipped": sum(reach["skipped"].values())}
    check(shown == expected, f"the preview's reach is the server's: {shown}")
    skips = {}
    for row in driver.find_elements(By.CSS_SELECTOR, "#dry-run-skips tbody tr"):
        cells = row.find_elements(By.TAG_NAME, "td")
        skips[cells[0].text] = int("".join(character for character in cells[1].text if character.isdigit()))
        check(cells[2].text != "", f"the skip reason {cells[0].text} is explained")
    check(skips == {reason: count for reason, count in reach["skipped"].items() if count},
          f"the preview lists the server's skips by reason: {skips}")
    renderings = driver.find_elements(By.CSS_SELECTOR, "#dry-run .rendering")
    check(len(renderings) == len(report["renderings"]) >= 1, f"the preview shows each rendering ({len(renderings)})")
    first = renderings[0]
    payload = json.loads(first.find_element(By.CSS_SELECTOR, "pre.payload").text)
    check(payload["aps"] == report["renderings"][0]["payload"]["aps"] and "Fits" in first.find_element(By.CSS_SELECTOR, ".size").text,
          "the rendering shows the payload and its size within the limit")
    cards = first.find_elements(By.CSS_SELECTOR, ".device-preview")
    check(len(cards) == len(report["renderings"][0]["device_previews"]) >= 1,
          f"the rendering shows a card per simulated device ({len(cards)})")
    check("Weekend picks" in cards[0].text and "Tap" in cards[0].text,
          "a device card shows the title and where a tap goes: " + cards[0].text.replace("\n", " · "))
    driver.execute_script("document.getElementById('dry-run').scrollIntoView()")
    console.shot("compose-preview")
    driver.execute_script("arguments[0].scrollIntoView()", cards[0])
    console.shot("compose-preview-devices")

    # An edit makes the preview out of date; a very long body is flagged over APNs' limit.
    body = form.find_element(By.NAME, "body")
    original = body.get_attribute("value")

    def write(text):
        driver.execute_script("""const [input, text] = arguments;
                                 input.value = text;
                                 input.dispatchEvent(new Event("input", { bubbles: true }));""", body, text)

    write("日" * 2000)
    console.text_in("#dry-run-status", "Out of date")
    check(not driver.find_element(By.ID, "send-now").is_enabled(), "an edit after the preview must be previewed again")
    driver.find_element(By.ID, "preview-send").click()
    console.text_in("#dry-run .over-limit", "Over the limit")
    check("4,096" in driver.find_element(By.CSS_SELECTOR, "#dry-run .over-limit").text
          or "4096" in driver.find_element(By.CSS_SELECTOR, "#dry-run .over-limit").text,
          "a very long body is flagged over the limit, with the limit")
    console.text_in("#lint", "the limit is 4096 bytes")
    console.shot("compose-preview-over-limit")

    write(original)
    console.record_requests()
    driver.find_element(By.ID, "preview-send").click()
    console.visible("#dry-run-would-send")
    check(shown_number(driver, "#dry-run-would-send") == reach["would_send"]
          and driver.find_element(By.ID, "send-now").is_enabled(), "previewed again, the message may be sent")
    previewed = console.bodies("POST /v1/messages")[-1]
    del previewed["dry_run"]
    return previewed, report


def preview_local_time(demo, console):
    """A refused preview says why in place; a local-time send's preview lists the server's due times."""
    driver = console.driver
    console.go("#/compose", "#compose-form")
    form = driver.find_element(By.ID, "compose-form")
    form.find_element(By.NAME, "title").send_keys("Local sale")
    form.find_element(By.CSS_SELECTOR, "input[name=audience][value=audience]").click()
    detail = form.find_element(By.NAME, "audience_detail")
    detail.send_keys("platform = ios and")
    driver.find_element(By.ID, "preview-send").click()
    console.text_in("#dry-run-error", "column")
    check(not driver.find_element(By.ID, "send-now").is_enabled(), "a refused preview is explained in place, and Send stays off")
    detail.clear()
    detail.send_keys("platform = ios")
    form.find_element(By.CSS_SELECTOR, "input[name=when][value=local]").click()
    driver.execute_script(
        """const [input, value] = arguments;
           input.value = value;
           input.dispatchEvent(new Event("input", { bubbles: true }));
           input.dispatchEvent(new Event("change", { bubbles: true }));""",
        form.find_element(By.NAME, "send_time"), time.strftime("%Y-%m-%dT%H:%M", time.gmtime(time.time() + 12 * 3600)))
    console.record_requests()
    driver.find_element(By.ID, "preview-send").click()
    console.visible("#dry-run-would-send")
    report = demo.api_post("/v1/messages", console.bodies("POST /v1/messages")[0])
    rows = driver.find_elements(By.CSS_SELECTOR, "#dry-run-local-schedule tbody tr")
    shown = [int(row.find_elements(By.TAG_NAME, "td")[2].text.replace(",", "")) for row in rows]
    check(shown == [wave["would_send"] for wave in report["local_schedule"]] and sum(shown) == report["reach"]["would_send"],
          f"a local-time preview lists the server's due times: {shown}")
    console.shot("compose-preview-local-time")


def counts_match_preview(demo, message_id, report):
    """Once the send is over, its counts are what the preview said: every target the preview counted, sent (or
    handed to the provider and failed) as many as it would send, skipped as many by the same reasons."""
    deadline = time.monotonic() + 30
    while True:
        counts = demo.api_get(f"/v1/messages/{message_id}")["counts"]
        if counts["queued"] == 0 and counts["in_flight"] == 0 or time.monotonic() > deadline:
            break
        time.sleep(0.5)
    reach = report["reach"]
    check(counts["targets"] == reach["would_send"] + sum(reach["skipped"].values())
          and counts["sent"] + counts["failed"] == reach["would_send"]
          and {reason: count for reason, count in counts["skipped_by_reason"].items() if count}
          == {reason: count for reason, count in reach["skipped"].items() if count},
          f"the message's counts match the preview's reach: {counts}")


def button_openers(demo, console):
    """People who open through a button only: opened counts them, and no rate passes 100%.

    The message goes to installations that do not exist (skipped), so that only the events posted here, in
    their names, count: three open the app through Buy, one of them after a delivery event; a fourth gets it.
    """
    driver = console.driver
    sent = demo.api_post("/v1/messages", {
        "target": {"installation_ids": ["browser-1", "browser-2", "browser-3", "browser-4"]},
        "content": {"title": "Buy now", "buttons": [{"id": "buy", "title": "Buy", "action": {"type": "open_app"}}]},
    })
    message_id = sent["message_id"]
    now = int(time.time() * 1000)

    def event(kind, installation, **extra):
        return {"event_id": str(uuid.uuid4()), "type": kind, "occurred_at": now, "installation_id": installation,
                "platform": "ios", "message_id": message_id, **extra}

    events = [event("delivery", "browser-1"), event("delivery", "browser-4")] + [
        event("action", f"browser-{index}", action_id="buy") for index in (1, 2, 3)]
    # The server key: a backend records events for any installation (app keys upload only their own).
    receipts = demo.api_post("/v1/events", {"events": events})["receipts"]
    check(all(receipt["status"] == "accepted" for receipt in receipts), "the button openers' events are accepted")
    stats = demo.api_get(f"/v1/messages/{message_id}/stats")
    check(stats["unique"]["opened"] == 3 and stats["rates"]["open_rate"] == 0.75
          and stats["rates"]["action_rate"] == 0.75, f"the API counts opens through a button: {stats}")

    console.go(f"#/messages/{message_id}", ".funnel")

    def rows(d):
        cells = {}
        for row in d.find_elements(By.CSS_SELECTOR, ".funnel tbody tr"):
            values = [cell.text for cell in row.find_elements(By.TAG_NAME, "td")]
            cells[values[0]] = values
        return cells if cells.get("Opened", [None] * 3)[2] == "3" else False

    try:
        funnel = WebDriverWait(driver, 15, ignored_exceptions=(StaleElementReferenceException,)).until(rows)
    except TimeoutException:
        raise AssertionError("the button openers' funnel: " + driver.find_element(By.CSS_SELECTOR, ".funnel").text)
    check(funnel["Delivered"][2] == "4" and funnel["Opened"][3] == "75.0%" and funnel["Actions"][3] == "75.0%",
          f"the console counts opens through a button, actions of delivered: {funnel}")
    check("null" not in driver.find_element(By.ID, "view").text,
          "a message without variants or languages shows no stray text where their tables would be")
    rates = [float(cell[:-1]) for values in funnel.values() for cell in values if cell.endswith("%")]
    check(rates and all(rate <= 100 for rate in rates), f"no rate on the message page passes 100%: {rates}")
    console.shot("message-button-openers")


def split_conversions(demo, console):
    """A split test that names a conversion: the message page lists each variant's conversions, the control
    group included; the overview's open rate is the API's, never above 100%."""
    driver = console.driver
    sent = demo.api_post("/v1/messages", {
        "target": {"all": True}, "campaign_id": "browser-split", "control": 0.2,
        "variants": [{"id": "a", "content": {"title": "A"}}, {"id": "b", "content": {"title": "B"}}],
        "conversion": {"event": "purchase", "within": "24h"},
    })
    message_id = sent["message_id"]
    console.go(f"#/messages/{message_id}", "#variant-conversions")
    console.text_in("#variant-conversions h2", "Conversions: purchase within 1 d of delivery")

    def arms(d):
        rows = d.find_elements(By.CSS_SELECTOR, "#variant-conversions tbody tr")
        names = [row.find_elements(By.TAG_NAME, "td")[0].text for row in rows]
        return names if names == ["a", "b", "control"] else False

    try:
        names = WebDriverWait(driver, 15, ignored_exceptions=(StaleElementReferenceException,)).until(arms)
    except TimeoutException:
        raise AssertionError("the conversions table: " + driver.find_element(By.ID, "view").text)
    check(names == ["a", "b", "control"], "the message page lists each variant's conversions, the control group too")
    console.shot("message-conversions")

    # The demo's devices keep opening: the page agrees with the API as read just before or just after it.
    def api_rate():
        rate = demo.api_get("/v1/stats/overview?days=14")["totals"]["open_rate"]
        return "–" if rate is None else f"{100 * rate:.1f}%"

    shown, expected = None, []
    for attempt in range(5):
        expected = [api_rate()]
        if attempt:
            # Setting the hash the page already shows renders nothing again: reload for a fresh overview.
            driver.refresh()
        console.go("#/overview", ".chart svg")
        cards = {card.find_element(By.CSS_SELECTOR, ".muted").text: card.find_element(By.CSS_SELECTOR, ".value").text
                 for card in driver.find_elements(By.CSS_SELECTOR, ".card")}
        shown = cards.get("Open rate, 14 days")
        expected.append(api_rate())
        if shown in expected:
            break
        time.sleep(1)
    check(shown in expected, f"the overview shows the API's open rate: {shown} ({expected})")
    check(shown == "–" or float(shown[:-1]) <= 100, f"the overview shows the API's open rate, at most 100%: {shown}")


def totp(secret, offset=0):
    """RFC 6238 with the standard library: HMAC-SHA1, 30-second steps, 6 digits; `offset` steps from now."""
    key = base64.b32decode(secret + "=" * (-len(secret) % 8))
    mac = hmac.new(key, struct.pack(">Q", int(time.time()) // 30 + offset), hashlib.sha1).digest()
    start = mac[-1] & 0x0F
    return f"{(struct.unpack('>I', mac[start:start + 4])[0] & 0x7FFFFFFF) % 1_000_000:06d}"


def two_factor(demo, console):
    """An admin turns on two-factor sign-in in Settings, then signs in with a TOTP code and a recovery code."""
    driver = console.driver
    driver.set_window_size(1280, 1000)
    driver.find_element(By.ID, "sign-out").click()
    console.visible("#sign-in-name")
    console.sign_in("demo", demo.password)
    console.go("#/settings", "#start-two-factor").click()
    secret = console.visible("#two-factor-secret").text
    qr = console.visible("#two-factor-qr")
    check(qr.get_attribute("src").startswith("data:image/svg+xml") and qr.size["width"] > 100,
          "Settings shows the enrolment QR code and the secret")
    console.shot("settings-two-factor-enrol")
    driver.find_element(By.NAME, "two_factor_confirm_code").send_keys(totp(secret))
    driver.find_element(By.CSS_SELECTOR, "#two-factor-confirm-form button[type=submit]").click()
    codes = [item.text for item in console.visible("#recovery-codes").find_elements(By.TAG_NAME, "li")]
    check(len(codes) == 10 and all(len(code) == 11 for code in codes), "confirming shows ten recovery codes once")
    check(driver.find_element(By.ID, "copy-recovery-codes").is_displayed(), "the recovery codes have a copy button")
    console.shot("settings-two-factor-codes")
    driver.find_element(By.ID, "recovery-codes-saved").click()
    console.text_in("#two-factor-state", "On. 10 recovery codes left")
    check(secret not in driver.find_element(By.ID, "view").text, "the secret is not shown again")

    def password_step():
        driver.find_element(By.ID, "sign-out").click()
        name = console.visible("#sign-in-name")
        name.clear()
        name.send_keys("demo")
        driver.find_element(By.ID, "sign-in-password").send_keys(demo.password)
        driver.find_element(By.CSS_SELECTOR, "#sign-in-form button[type=submit]").click()
        return console.visible("#sign-in-code")

    # The confirming code's step is used; the next step's code is inside the window and not a replay.
    password_step()
    check(driver.find_element(By.ID, "top").is_displayed() is False, "the password alone opens no session")
    console.shot("sign-in-code")
    code = driver.find_element(By.ID, "sign-in-code")
    code.send_keys("000000")
    driver.find_element(By.CSS_SELECTOR, "#second-factor-form button[type=submit]").click()
    console.text_in("#second-factor-error", "wrong")
    code.send_keys(totp(secret, 1))
    driver.find_element(By.CSS_SELECTOR, "#second-factor-form button[type=submit]").click()
    console.visible("#top")
    console.text_in("#who", "demo")
    check(True, "an admin signs in with the password and a TOTP code")

    password_step().send_keys(codes[0])
    driver.find_element(By.CSS_SELECTOR, "#second-factor-form button[type=submit]").click()
    console.visible("#top")
    console.go("#/settings", "#two-factor-state")
    console.text_in("#two-factor-state", "9 recovery codes left")
    check(True, "a recovery code signs in once")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--bin", required=True)
    parser.add_argument("--screenshots", default=".build/browser-test")
    arguments = parser.parse_args()
    os.makedirs(arguments.screenshots, exist_ok=True)
    started = time.monotonic()
    demo = Demo(arguments.bin)
    console = None
    try:
        console = Console(demo.console, arguments.screenshots)
        run(demo, console, arguments.bin)
        two_factor(demo, console)
    except Exception as error:  # noqa: BLE001 - any failure fails the run, with a screenshot of where.
        if console:
            console.shot("failure")
        print(f"not ok - {type(error).__name__}: {error}", flush=True)
        return 1
    finally:
        if console:
            console.close()
        demo.stop()
    print(f"browser test passed in {time.monotonic() - started:.0f} s; screenshots in {arguments.screenshots}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
