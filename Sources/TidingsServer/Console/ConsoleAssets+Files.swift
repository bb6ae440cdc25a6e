// Written by scripts/console-assets from console/; edit those files and run the script.

extension ConsoleAssets {
    /// Each file of console/ by name.
    static let files: [String: String] = [
        "api.js": #"""
        // The console calls the public API with its session cookie; every write echoes the session's CSRF token
        // and every app-scoped call names the chosen app.
        export const session = { csrf: null, operator: null, apps: [], app: null };

        export class APIError extends Error {
          constructor(status, code, message) {
            super(message);
            this.status = status;
            this.code = code;
          }
        }

        export async function api(method, path, body, { app = true, raw = false } = {}) {
          const headers = { Accept: "application/json" };
          if (body !== undefined) headers["Content-Type"] = "application/json";
          if (method !== "GET" && session.csrf) headers["X-CSRF-Token"] = session.csrf;
          if (app && session.app) headers["X-Tidings-App"] = session.app;
          const response = await fetch(path, {
            method, headers, credentials: "same-origin",
            body: body === undefined ? undefined : JSON.stringify(body),
          });
          if (!response.ok) {
            let code = "error";
            let message = `${response.status} ${response.statusText}`;
            try {
              const error = (await response.json()).error;
              code = error.code;
              message = error.message;
            } catch {
              // Not JSON: keep the status line.
            }
            // Only a missing or ended session signs out: a wrong password or code (re-entered in Settings) is a 401 too.
            if (response.status === 401 && (code === "unauthorized" || code === "session_expired")) {
              window.dispatchEvent(new CustomEvent("tidings:signed-out"));
            }
            throw new APIError(response.status, code, message);
          }
          if (raw) return response;
          if (response.status === 204) return null;
          return response.json();
        }

        export function can(role) {
          const ranks = { viewer: 0, editor: 1, admin: 2 };
          return session.operator && ranks[session.operator.role] >= ranks[role];
        }
        """#,
        "app.js": #"""
        // The console's shell: sign-in, the app picker, and a hash router over the pages.
        import { api, session } from "/console/api.js";
        import { overviewPage } from "/console/page-overview.js";
        import { devicesPage, devicePage } from "/console/page-devices.js";
        import { eventsPage } from "/console/page-events.js";
        import { messagesPage, messagePage } from "/console/page-messages.js";
        import { composePage } from "/console/page-compose.js";
        import { journeysPage, journeyPage, journeyBuilderPage } from "/console/page-journeys.js";
        import { settingsPage } from "/console/page-settings.js";
        import { h, show } from "/console/dom.js";

        const routes = [
          [/^#\/overview$/, overviewPage],
          [/^#\/devices$/, devicesPage],
          [/^#\/devices\/(.+)$/, devicePage],
          [/^#\/events$/, eventsPage],
          [/^#\/messages$/, messagesPage],
          [/^#\/messages\/(.+)$/, messagePage],
          [/^#\/compose(?:\?from=(.+))?$/, composePage],
          [/^#\/journeys$/, journeysPage],
          [/^#\/journeys\/new$/, (view) => journeyBuilderPage(view)],
          [/^#\/journeys\/([^/]+)\/edit$/, journeyBuilderPage],
          [/^#\/journeys\/([^/]+)$/, journeyPage],
          [/^#\/settings$/, settingsPage],
        ];

        const view = () => document.getElementById("view");
        let pageTimer = null;

        // Pages may poll; the router stops a page's timer when another page opens.
        export function setPageTimer(timer) {
          if (pageTimer) clearInterval(pageTimer);
          pageTimer = timer;
        }

        // The challenge a right password got when the operator has two-factor sign-in on; kept only in memory.
        let challenge = null;

        function showSignIn() {
          session.csrf = null;
          session.operator = null;
          challenge = null;
          setPageTimer(null);
          document.getElementById("top").hidden = true;
          document.getElementById("view").replaceChildren();
          document.getElementById("sign-in").hidden = false;
          document.getElementById("second-factor-form").hidden = true;
          document.getElementById("sign-in-form").hidden = false;
          document.getElementById("sign-in-name").focus();
        }

        function showSecondFactor(answer) {
          challenge = answer.challenge;
          document.getElementById("sign-in-form").hidden = true;
          document.getElementById("second-factor-error").textContent = "";
          document.getElementById("second-factor-form").hidden = false;
          document.getElementById("sign-in-code").focus();
        }

        async function loadSession() {
          const me = await api("GET", "/v1/session", undefined, { app: false });
          session.csrf = me.csrf_token;
          session.operator = me.operator;
          session.apps = me.apps;
          const remembered = localStorage.getItem("tidings.app");
          session.app = me.apps.some((app) => app.id === remembered) ? remembered : me.apps[0]?.id ?? null;
          if (session.app) localStorage.setItem("tidings.app", session.app);
          const picker = document.getElementById("app-picker");
          picker.replaceChildren(...me.apps.map((app) => h("option", { value: app.id, selected: app.id === session.app },
            `${app.name} (${app.id})`)));
          // An admin the server requires two-factor sign-in of, who has not enrolled: Settings only, until enrolled.
          session.enrolmentRequired = me.two_factor?.enrolment_required === true;
          document.getElementById("nav").hidden = session.enrolmentRequired;
          document.getElementById("who").textContent = `${me.operator.name} · ${me.operator.role}`;
          // Events are personal data in bulk: the server refuses them to viewers, so their link is not shown.
          document.querySelector('#nav a[href="#/events"]').parentElement.hidden = me.operator.role === "viewer";
          document.getElementById("sign-in").hidden = true;
          document.getElementById("top").hidden = false;
        }

        async function route() {
          if (!session.csrf) return;
          if (session.enrolmentRequired && location.hash !== "#/settings") {
            location.hash = "#/settings";
            return;
          }
          const hash = location.hash || "#/overview";
          for (const link of document.querySelectorAll("#nav a")) {
            if (hash.startsWith(link.getAttribute("href"))) link.setAttribute("aria-current", "page");
            else link.removeAttribute("aria-current");
          }
          setPageTimer(null);
          const target = view();
          if (!session.app && !hash.startsWith("#/settings")) {
            show(target, h("h1", {}, "No apps yet"),
              h("p", {}, "Create an app in ", h("a", { href: "#/settings" }, "Settings"), " (admins) or with tidingsd apps."));
            return;
          }
          for (const [pattern, page] of routes) {
            const match = hash.match(pattern);
            if (!match) continue;
            try {
              await page(target, ...match.slice(1).map((part) => (part === undefined ? undefined : decodeURIComponent(part))));
            } catch (error) {
              show(target, h("h1", {}, "Something went wrong"), h("p", { class: "error", role: "alert" }, error.message));
            }
            document.getElementById("main").focus({ preventScroll: true });
            return;
          }
          location.hash = "#/overview";
        }

        document.getElementById("sign-in-form").addEventListener("submit", async (event) => {
          event.preventDefault();
          const form = event.target;
          const error = document.getElementById("sign-in-error");
          error.textContent = "";
          try {
            const answer = await api("POST", "/v1/session", { name: form.name.value, password: form.password.value },
              { app: false });
            form.password.value = "";
            if (answer.second_factor_required) {
              showSecondFactor(answer);
              return;
            }
            await loadSession();
            await route();
          } catch (failure) {
            error.textContent = failure.status === 429 ? `Too many attempts: ${failure.message}` : failure.message;
          }
        });

        document.getElementById("second-factor-form").addEventListener("submit", async (event) => {
          event.preventDefault();
          const code = document.getElementById("sign-in-code");
          const error = document.getElementById("second-factor-error");
          error.textContent = "";
          try {
            await api("POST", "/v1/session/second-factor", { challenge, code: code.value.trim() }, { app: false });
            code.value = "";
            challenge = null;
            await loadSession();
            await route();
          } catch (failure) {
            code.value = "";
            if (failure.code === "challenge_expired") {
              showSignIn();
              document.getElementById("sign-in-error").textContent = failure.message;
              return;
            }
            error.textContent = failure.status === 429 ? `Too many attempts: ${failure.message}` : failure.message;
          }
        });

        document.getElementById("second-factor-back").addEventListener("click", showSignIn);

        document.getElementById("sign-out").addEventListener("click", async () => {
          try {
            await api("DELETE", "/v1/session", undefined, { app: false });
          } finally {
            showSignIn();
          }
        });

        document.getElementById("app-picker").addEventListener("change", (event) => {
          session.app = event.target.value;
          localStorage.setItem("tidings.app", session.app);
          route();
        });

        window.addEventListener("hashchange", route);
        window.addEventListener("tidings:signed-out", showSignIn);

        (async () => {
          try {
            await loadSession();
            await route();
          } catch {
            showSignIn();
          }
        })();
        """#,
        "charts.js": #"""
        // Plain SVG line charts drawn here: days along the bottom, one line per series.
        const NS = "http://www.w3.org/2000/svg";

        function svg(tag, attributes = {}) {
          const element = document.createElementNS(NS, tag);
          for (const [name, value] of Object.entries(attributes)) element.setAttribute(name, value);
          return element;
        }

        export function lineChart({ title, days, series, format = (value) => String(value), maximum }) {
          const width = 640;
          const height = 220;
          const left = 44;
          const bottom = 24;
          const top = 10;
          const plotWidth = width - left - 10;
          const plotHeight = height - top - bottom;
          const values = series.flatMap((line) => line.values);
          const peak = maximum ?? Math.max(1, ...values);
          const x = (index) => left + (days.length <= 1 ? 0 : (index * plotWidth) / (days.length - 1));
          const y = (value) => top + plotHeight - (value / peak) * plotHeight;
          const chart = svg("svg", { viewBox: `0 0 ${width} ${height}`, role: "img", "aria-label": title });
          const description = svg("title");
          description.textContent = `${title}: ` + series.map((line) =>
            `${line.name} ${line.values.map(format).join(", ")}`).join("; ");
          chart.append(description);
          chart.append(svg("line", { class: "axis", x1: left, y1: top + plotHeight, x2: width - 10, y2: top + plotHeight }));
          chart.append(svg("line", { class: "axis", x1: left, y1: top, x2: left, y2: top + plotHeight }));
          for (const fraction of [0, 0.5, 1]) {
            const label = svg("text", { x: left - 6, y: y(peak * fraction) + 4, "text-anchor": "end" });
            label.textContent = format(Math.round(peak * fraction * 100) / 100);
            chart.append(label);
          }
          days.forEach((day, index) => {
            if (days.length > 8 && index % Math.ceil(days.length / 7) !== 0) return;
            const label = svg("text", { x: x(index), y: height - 6, "text-anchor": "middle" });
            const date = new Date(day);
            label.textContent = `${date.getUTCMonth() + 1}/${date.getUTCDate()}`;
            chart.append(label);
          });
          series.forEach((line, number) => {
            const color = `var(--chart-${number + 1})`;
            const points = line.values.map((value, index) => `${x(index)},${y(value)}`).join(" ");
            chart.append(svg("polyline", { points, fill: "none", stroke: color, "stroke-width": 2 }));
            line.values.forEach((value, index) => {
              chart.append(svg("circle", { cx: x(index), cy: y(value), r: 2.5, fill: color }));
            });
          });
          const legend = document.createElement("div");
          legend.className = "legend";
          series.forEach((line, number) => {
            const item = document.createElement("span");
            const swatch = document.createElement("span");
            swatch.className = "swatch";
            swatch.style.background = `var(--chart-${number + 1})`;
            item.append(swatch, line.name);
            legend.append(item);
          });
          const figure = document.createElement("figure");
          figure.className = "chart";
          const caption = document.createElement("figcaption");
          caption.textContent = title;
          figure.append(caption, chart, legend);
          return figure;
        }
        """#,
        "console.css": #"""
        :root {
          --bg: #ffffff;
          --fg: #1b1f24;
          --muted: #57606a;
          --line: #d0d7de;
          --panel: #f6f8fa;
          --accent: #0a58ca;
          --accent-fg: #ffffff;
          --bad: #b42318;
          --good: #1a7f37;
          --chart-1: #0a58ca;
          --chart-2: #1a7f37;
          --chart-3: #9a6700;
          --chart-4: #b42318;
          font-family: system-ui, -apple-system, "Segoe UI", Roboto, sans-serif;
          color: var(--fg);
          background: var(--bg);
        }
        @media (prefers-color-scheme: dark) {
          :root {
            --bg: #0d1117;
            --fg: #e6edf3;
            --muted: #9da7b3;
            --line: #30363d;
            --panel: #161b22;
            --accent: #4493f8;
            --accent-fg: #0d1117;
            --bad: #ff7b72;
            --good: #3fb950;
            --chart-1: #4493f8;
            --chart-2: #3fb950;
            --chart-3: #d29922;
            --chart-4: #ff7b72;
          }
        }
        * { box-sizing: border-box; }
        [hidden] { display: none !important; }
        body { margin: 0; line-height: 1.45; background: var(--bg); color: var(--fg); }
        a { color: var(--accent); }
        :focus-visible { outline: 3px solid var(--accent); outline-offset: 2px; }
        .skip { position: absolute; left: -999px; }
        .skip:focus { left: 8px; top: 8px; background: var(--panel); padding: 8px; z-index: 2; }
        header {
          display: flex; flex-wrap: wrap; gap: 8px 16px; align-items: center;
          padding: 8px 16px; border-bottom: 1px solid var(--line); background: var(--panel);
        }
        header nav ul { display: flex; flex-wrap: wrap; gap: 4px 12px; list-style: none; margin: 0; padding: 0; }
        header nav a { text-decoration: none; padding: 4px 6px; border-radius: 6px; }
        header nav a[aria-current="page"] { background: var(--accent); color: var(--accent-fg); }
        .brand { font-size: 1.1rem; }
        .who { margin-left: auto; color: var(--muted); }
        main { padding: 16px; max-width: 1200px; margin: 0 auto; }
        h1 { font-size: 1.5rem; margin: 8px 0 16px; }
        h2 { font-size: 1.15rem; margin: 24px 0 8px; }
        label { display: block; font-weight: 600; margin: 12px 0 4px; }
        label.inline { display: inline-flex; gap: 6px; align-items: center; font-weight: normal; margin: 4px 12px 4px 0; }
        input, select, textarea, button {
          font: inherit; color: inherit; background: var(--bg);
          border: 1px solid var(--line); border-radius: 6px; padding: 6px 8px;
        }
        input, select, textarea { width: 100%; max-width: 36rem; }
        label.inline input { width: auto; }
        textarea { min-height: 4rem; }
        button { cursor: pointer; background: var(--panel); }
        button.primary { background: var(--accent); color: var(--accent-fg); border-color: var(--accent); }
        button.danger { color: var(--bad); }
        button:disabled { opacity: 0.5; cursor: not-allowed; }
        .error { color: var(--bad); }
        .ok { color: var(--good); }
        .muted { color: var(--muted); }
        .cards { display: grid; grid-template-columns: repeat(auto-fit, minmax(180px, 1fr)); gap: 12px; }
        .card { border: 1px solid var(--line); border-radius: 8px; padding: 12px; background: var(--panel); }
        .card .value { font-size: 1.6rem; font-weight: 700; }
        table { border-collapse: collapse; width: 100%; font-size: 0.95rem; }
        th, td { text-align: left; padding: 6px 8px; border-bottom: 1px solid var(--line); vertical-align: top; }
        th { background: var(--panel); }
        .table-wrap { overflow-x: auto; }
        .row { display: flex; flex-wrap: wrap; gap: 8px; align-items: end; }
        .row > * { flex: 0 1 auto; }
        .split { display: grid; grid-template-columns: minmax(0, 3fr) minmax(0, 2fr); gap: 24px; }
        fieldset { border: 1px solid var(--line); border-radius: 8px; margin: 12px 0; }
        legend { font-weight: 700; padding: 0 4px; }
        .chart svg { width: 100%; height: auto; max-width: 640px; }
        .chart .axis { stroke: var(--line); }
        .chart text { fill: var(--muted); font-size: 11px; }
        .legend { display: flex; gap: 12px; flex-wrap: wrap; font-size: 0.9rem; }
        .swatch { display: inline-block; width: 12px; height: 12px; border-radius: 2px; margin-right: 4px; }
        .funnel .bar { height: 22px; background: var(--chart-1); border-radius: 4px; min-width: 2px; }
        .funnel td:nth-child(2) { width: 50%; }
        .lock-screen {
          border-radius: 28px; padding: 36px 14px; max-width: 360px;
          background: linear-gradient(160deg, #3a4a6b, #1c2233); color: #fff;
        }
        .lock-screen .clock { text-align: center; font-size: 3rem; font-weight: 300; margin-bottom: 24px; }
        .notification { background: rgba(245, 245, 245, 0.85); color: #111; border-radius: 18px; padding: 10px 12px; }
        .notification .head { display: flex; justify-content: space-between; font-size: 0.8rem; color: #555; }
        .notification .title { font-weight: 700; }
        .notification img { max-width: 100%; border-radius: 10px; margin-top: 6px; }
        .notification .buttons { display: grid; gap: 4px; margin-top: 8px; }
        .notification .buttons span { background: rgba(255, 255, 255, 0.7); border-radius: 10px; padding: 6px; text-align: center; }
        .lint li.error { color: var(--bad); }
        .lint li.warning { color: var(--chart-3); }
        .secret { font-family: ui-monospace, monospace; word-break: break-all; background: var(--panel); padding: 8px; }
        .qr { width: 220px; height: 220px; display: block; background: #fff; image-rendering: pixelated; }
        #recovery-codes { list-style: none; columns: 2; }
        code { font-family: ui-monospace, monospace; }
        @media (max-width: 760px) {
          .split { grid-template-columns: 1fr; }
          header { padding: 8px; }
          main { padding: 8px; }
          .who { margin-left: 0; }
        }
        header select { width: auto; max-width: 16rem; }
        .split aside { position: sticky; top: 8px; align-self: start; }
        #dry-run { border-top: 1px solid var(--line); margin-top: 24px; }
        #dry-run h3 { font-size: 1.05rem; margin: 20px 0 8px; }
        .stale { border-left: 4px solid var(--chart-3); padding-left: 8px; }
        .rendering { border: 1px solid var(--line); border-radius: 8px; padding: 12px; margin: 12px 0; }
        .rendering h4 { font-size: 1rem; margin: 0 0 4px; }
        .rendering h5 { font-size: 0.95rem; margin: 12px 0 4px; }
        .size meter { width: 100%; max-width: 36rem; height: 1rem; }
        .size p { margin: 4px 0; }
        .size.fits p { color: var(--good); }
        .over-limit { color: var(--bad); border-left: 4px solid var(--bad); padding-left: 8px; }
        pre.payload {
          background: var(--panel); border: 1px solid var(--line); border-radius: 6px; padding: 8px; margin: 4px 0;
          max-height: 24rem; overflow: auto; white-space: pre-wrap; overflow-wrap: anywhere; font-size: 0.85rem;
        }
        .phones { display: grid; grid-template-columns: repeat(auto-fill, minmax(240px, 1fr)); gap: 16px; align-items: start; }
        .device-preview { margin: 0; }
        .device-preview figcaption { font-weight: 600; margin-bottom: 6px; }
        .phone {
          border: 8px solid #1c1f26; border-radius: 32px; padding: 10px 10px 28px; max-width: 300px; min-height: 12rem;
          background: linear-gradient(160deg, #3a4a6b, #1c2233); color: #fff;
        }
        .phone::before { content: ""; display: block; width: 36%; height: 6px; margin: 0 auto 16px; border-radius: 3px; background: #0b0d12; }
        .phone .not-shown { font-style: italic; text-align: center; }
        .notification .subtitle { font-weight: 600; }
        .notification .buttons span.destructive { color: #b42318; }
        .facts { margin: 8px 0 0; font-size: 0.9rem; max-width: 300px; }
        .facts dt { font-weight: 700; }
        .facts dd { margin: 0 0 6px; overflow-wrap: anywhere; }
        .steps { padding-left: 1.5rem; }
        .steps .step.invalid > fieldset { border-color: var(--bad); border-width: 2px; }
        .step-errors { margin: 8px 0; }
        """#,
        "dom.js": #"""
        // Builds elements without innerHTML, so text from the server is never parsed as markup. Children may be
        // nested arrays (a section's parts), flattened in order.
        export function h(tag, attributes = {}, ...children) {
          const element = document.createElement(tag);
          for (const [name, value] of Object.entries(attributes)) {
            if (value === false || value === null || value === undefined) continue;
            if (name.startsWith("on")) element.addEventListener(name.slice(2), value);
            else if (name === "text") element.textContent = value;
            else element.setAttribute(name, value === true ? "" : value);
          }
          for (const child of children.flat(Infinity)) {
            if (child === null || child === undefined || child === false) continue;
            element.append(child instanceof Node ? child : String(child));
          }
          return element;
        }

        let fieldCounter = 0;

        // A labelled control: the label's `for` names the control's id.
        export function field(labelText, control) {
          if (!control.id) control.id = `field-${++fieldCounter}`;
          return [h("label", { for: control.id }, labelText), control];
        }

        export function table(headers, rows, caption) {
          return h("div", { class: "table-wrap" },
            h("table", {},
              caption ? h("caption", { class: "muted" }, caption) : null,
              h("thead", {}, h("tr", {}, headers.map((name) => h("th", { scope: "col" }, name)))),
              h("tbody", {}, rows.map((cells) => h("tr", {}, cells.map((cell) => h("td", {}, cell)))))));
        }

        export function time(milliseconds) {
          if (!milliseconds) return "";
          return new Date(milliseconds).toLocaleString();
        }

        export function percent(part, whole) {
          if (!whole) return "–";
          return `${((100 * part) / whole).toFixed(1)}%`;
        }

        // A rate the server computed (0…1, or null until something was delivered) as a percentage.
        export function rate(value) {
          return typeof value === "number" ? `${(100 * value).toFixed(1)}%` : "–";
        }

        // Replaces what `view` shows; null, undefined and false children (a section left out) show nothing, as in h().
        export function show(view, ...children) {
          view.replaceChildren(...children.flat(Infinity).filter((child) => child !== null && child !== undefined && child !== false));
        }
        """#,
        "dry-run.js": #"""
        // Draws the server's dry-run answer (POST /v1/messages with "dry_run": true; docs/campaigns.md, "Dry run"):
        // reach and skips, variants, local schedule, duration, each rendering and what simulated devices show of it.
        import { h, table, time } from "/console/dom.js";

        // Every key a send counts under skipped_by_reason, in words an operator can act on; an unknown key (a newer
        // server) is shown as it is.
        const skipReasons = {
          consent: "Notifications are off: the device has not given notification consent.",
          ad_consent: "An ad, and the device has not agreed to ads.",
          night: "An ad during the device's night (21:00–08:00 local) without night-time ad consent.",
          frequency_cap: "The device already had the app's frequency cap of marketing pushes in its window.",
          no_token: "The device has no push token of the kind this message needs.",
          unregistered: "The installation no longer exists.",
          expired: "The message would expire before this device's turn comes.",
          control: "In the split test's control group: counted, never sent.",
          past_local_time: "The chosen local time has already passed in the device's zone (and \"send at once\" is off).",
          unknown_time_zone: "A local-time send, and the device has no known time zone and there is no fallback zone.",
          environment: "The device is in the other APNs environment (sandbox or production) than the message.",
          unknown_installation: "An installation id the message names does not exist in this app.",
          left_audience: "The device left the audience before its local due time.",
          user_changed: "Sent to a user, and the device now belongs to another user or none.",
          rendered_payload_too_large: "Personalised for this device, the payload is over APNs' size limit.",
          no_apns_credentials: "The device has only an APNs token and the app has no APNs credentials.",
          no_fcm_credentials: "The device has only an FCM token and the app has no FCM service account.",
          no_credentials: "The app has credentials for neither of the device's tokens.",
        };

        const limits = {
          message_rate: "the message's own rate (rate_per_second)",
          app_ceiling: "the app's sending ceiling (send settings)",
        };

        const taps = { deep_link: "Opens the deep link", web: "Opens the web page", screen: "Opens a screen of the app",
          app: "Opens the app" };

        const number = (value) => new Intl.NumberFormat().format(value ?? 0);

        // 190 → "3 min 10 s": how long a person waits, not a stopwatch reading.
        function duration(seconds) {
          if (seconds < 1) return "under a second";
          const whole = Math.round(seconds);
          const parts = [[Math.floor(whole / 3600), "h"], [Math.floor((whole % 3600) / 60), "min"], [whole % 60, "s"]];
          return parts.filter(([value]) => value > 0).slice(0, 2).map(([value, unit]) => `${value} ${unit}`).join(" ");
        }

        function offset(seconds) {
          if (seconds === null || seconds === undefined) return "sent at once (time already past)";
          const sign = seconds < 0 ? "−" : "+";
          const minutes = Math.abs(seconds) / 60;
          return `UTC${sign}${String(Math.floor(minutes / 60)).padStart(2, "0")}:${String(minutes % 60).padStart(2, "0")}`;
        }

        // The size of a payload against APNs' limit, said in words so the state never rests on colour alone.
        function sizeState(bytes, limit, fits = bytes <= limit) {
          return h("div", { class: `size ${fits ? "fits" : "over-limit"}` },
            h("meter", { min: "0", max: String(limit), value: String(Math.min(bytes, limit)), high: String(limit * 0.9),
              optimum: "0", "aria-label": `Payload size, ${bytes} of ${limit} bytes` }),
            h("p", {}, fits ?
              `✓ Fits: ${number(bytes)} of ${number(limit)} bytes.` :
              h("strong", {}, `✗ Over the limit: ${number(bytes)} of ${number(limit)} bytes, ${number(bytes - limit)} too many. ` +
                "APNs refuses it; shorten the content.")));
        }

        function reach(report) {
          const skipped = Object.entries(report.reach?.skipped ?? {}).filter(([, count]) => count > 0)
            .sort(([, a], [, b]) => b - a);
          const totalSkipped = skipped.reduce((sum, [, count]) => sum + count, 0);
          const deferred = report.reach?.deferred?.night ?? 0;
          const card = (label, value, id) => h("div", { class: "card" },
            h("div", { class: "muted" }, label), h("div", { class: "value", id }, number(value)));
          return [
            h("h3", {}, "Reach"),
            h("div", { class: "cards" },
              card("Matched by the target", report.audience?.matched, "dry-run-matched"),
              card("Would be sent", report.reach?.would_send, "dry-run-would-send"),
              card("Would be skipped", totalSkipped, "dry-run-skipped"),
              deferred > 0 ? card("Ads held to 08:00 local, then sent", deferred, "dry-run-deferred") : null),
            skipped.length === 0 ? h("p", { class: "ok" }, "✓ No one would be skipped.") :
              h("div", { id: "dry-run-skips" }, table(["Reason", "Installations", "What it means"],
                skipped.map(([reason, count]) => [h("code", {}, reason), number(count), skipReasons[reason] ?? ""]),
                "Skipped, by reason (reasons with none are left out)")),
          ];
        }

        function variants(report) {
          if (!report.by_variant?.length) return [];
          return [h("h3", {}, "By variant"), h("div", { id: "dry-run-variants" },
            table(["Variant", "Would be sent", "Held back (control group)"], report.by_variant.map((arm) =>
              [arm.variant, number(arm.would_send), arm.holdout === undefined ? "–" : number(arm.holdout)])))];
        }

        function localSchedule(report) {
          if (!report.local_schedule?.length) return [];
          return [h("h3", {}, "Local schedule"), h("div", { id: "dry-run-local-schedule" },
            table(["Due (your time)", "Zones at", "Would be sent"], report.local_schedule.map((wave) =>
              [time(wave.due_at), offset(wave.utc_offset_seconds), number(wave.would_send)]),
            "Each device gets it at the chosen time on its own clock"))];
        }

        function timing(report) {
          const pace = report.duration ?? {};
          const when = report.send_at > report.evaluated_at + 60_000 ? `Sending starts ${time(report.send_at)}. ` :
            "Sending starts at once. ";
          let text;
          if (!report.reach?.would_send) text = "Nothing would be sent.";
          else if (pace.limited_by === "none" || !pace.rate_per_second) {
            text = "No rate applies: pushes go out as fast as the provider takes them.";
          } else {
            text = `About ${duration(pace.seconds)} at ${number(pace.rate_per_second)} pushes a second, limited by ` +
              `${limits[pace.limited_by] ?? pace.limited_by}.`;
          }
          const span = pace.first_send_at && pace.last_send_at && pace.last_send_at !== pace.first_send_at ?
            ` First push ${time(pace.first_send_at)}, last ${time(pace.last_send_at)}.` : "";
          return [h("h3", {}, "How long it takes"), h("p", { id: "dry-run-duration" }, when, text, span)];
        }

        function renderingTitle(rendering) {
          const parts = [];
          if (rendering.variant !== null && rendering.variant !== undefined) parts.push(`Variant ${rendering.variant}`);
          if (rendering.language !== null && rendering.language !== undefined) {
            parts.push(rendering.language === "default" ? "default language" : `language ${rendering.language}`);
          }
          return parts.length ? parts.join(", ") : "The message";
        }

        function lintList(findings) {
          if (!findings?.length) return h("p", { class: "ok" }, "✓ No findings.");
          return h("ul", { class: "lint" }, findings.map((finding) => h("li", { class: finding.severity },
            h("strong", {}, `${finding.severity}: `), finding.message,
            finding.path ? [" (", h("code", {}, finding.path), ")"] : null)));
        }

        function buttonsText(buttons) {
          return buttons.map((button) => {
            const notes = [button.opens_app ? "opens the app" : "works in the background"];
            if (button.destructive) notes.push("destructive");
            return `${button.title} (${notes.join(", ")})`;
          }).join("; ");
        }

        // One simulated device: what its screen shows, then the facts a screen cannot show (where a tap goes, and
        // whether that is allowed; how the app in the foreground presents it).
        function deviceCard(preview) {
          const image = preview.image;
          const notification = preview.shown === false ?
            h("p", { class: "not-shown" }, "Not shown", preview.not_shown_reason ? ` (${preview.not_shown_reason})` : "", ".") :
            h("div", { class: "notification" },
              h("div", { class: "head" }, h("span", {}, "YOUR APP"), h("span", {}, "now")),
              preview.title ? h("div", { class: "title" }, preview.title) : null,
              preview.subtitle ? h("div", { class: "subtitle" }, preview.subtitle) : null,
              preview.body ? h("div", { class: "body" }, preview.body) : null,
              image?.attached && image.url ? h("img", { src: image.url, alt: "The attached image" }) : null,
              preview.buttons?.length ? h("div", { class: "buttons" }, preview.buttons.map((button) =>
                h("span", { class: button.destructive ? "destructive" : null }, button.title))) : null);
          const tap = preview.tap;
          // A push that shows nothing has no image, buttons or tap to speak of; what it still does (a badge) is listed.
          const facts = preview.shown === false ? [] : [
            ["Image", !image ? "None" : image.attached ? "✓ Attached" :
              `✗ Not attached${image.reason ? `: ${image.reason}` : ""}`],
            ["Buttons", preview.buttons?.length ? buttonsText(preview.buttons) : "None"],
            ["Category", preview.category ?? "None"],
            ["Tap", !tap ? "Not known" : [`${taps[tap.kind] ?? tap.kind}`, tap.destination ? [" ", h("code", {}, tap.destination)] : null,
              tap.allowed === false ? `: ✗ not allowed${tap.reason ? ` (${tap.reason})` : ""}.` :
                tap.allowed === null ? `: ? the app decides${tap.reason ? ` (${tap.reason})` : ""}.` : ": ✓ allowed."]],
            ["In the foreground", preview.foreground_presentation === null || preview.foreground_presentation === undefined ?
              "Not applicable: the app is not in the foreground" :
              preview.foreground_presentation.length ? preview.foreground_presentation.join(", ") : "Nothing is presented"],
          ];
          if (preview.badge !== null && preview.badge !== undefined) facts.push(["Badge", String(preview.badge)]);
          if (preview.sound) facts.push(["Sound", preview.sound]);
          if (preview.inbox) facts.push(["Inbox", "Kept in the app's inbox"]);
          return h("figure", { class: "device-preview" },
            h("figcaption", {}, preview.device ?? "A device"),
            h("div", { class: "phone" }, h("div", { class: "screen" }, notification)),
            facts.length ? h("dl", { class: "facts" }, facts.map(([term, detail]) => [h("dt", {}, term), h("dd", {}, detail)])) : null);
        }

        function rendering(item, index) {
          const id = `dry-run-rendering-${index}`;
          const previews = item.device_previews ?? [];
          return h("article", { class: "rendering", "aria-labelledby": `${id}-title`, id },
            h("h4", { id: `${id}-title` }, renderingTitle(item)),
            h("p", { class: "muted" }, item.installation_id ?
              ["Personalised for installation ", h("code", {}, item.installation_id), "."] :
              "No installation in the audience gets it: shown without personalisation."),
            sizeState(item.payload_bytes, item.limit_bytes, item.fits),
            h("h5", {}, "Checks"), lintList(item.lint),
            h("details", { open: true }, h("summary", {}, `Payload (${number(item.payload_bytes)} bytes)`),
              h("pre", { class: "payload", tabindex: "0", "aria-label": "Payload as JSON" },
                h("code", {}, JSON.stringify(item.payload, null, 2)))),
            h("h5", {}, "On devices"),
            previews.length ? h("div", { class: "phones" }, previews.map(deviceCard)) :
              h("p", { class: "muted" }, "This server did not simulate devices for this rendering."));
        }

        // A refused preview, inline: the same refusal a real send would get. A payload over APNs' limit is the
        // over-limit state itself, not a generic error.
        export function dryRunError(error) {
          if (error.code === "payload_too_large") {
            return h("div", { class: "size over-limit", role: "alert", id: "dry-run-error" }, h("p", {},
              h("strong", {}, "✗ Over the limit: "), `${error.message}. APNs refuses a payload over its limit; shorten the content.`));
          }
          return h("p", { class: "error", role: "alert", id: "dry-run-error" },
            h("strong", {}, "The server refused the preview: "), error.message, error.code ? [" (", h("code", {}, error.code), ")"] : null);
        }

        // The whole answer, below the heading the page gives it.
        export function dryRunReport(report) {
          const renderings = report.renderings ?? [];
          return [
            h("p", { class: "muted" }, `Evaluated ${time(report.evaluated_at)} against the audience as it is now; `,
              "nothing was sent or stored."),
            reach(report), variants(report), localSchedule(report), timing(report),
            h("h3", {}, `Renderings (${renderings.length})`),
            h("p", { class: "muted" }, "Each variant and language, as the payload a real send would push."),
            renderings.map(rendering),
            report.notes?.length ? [h("h3", {}, "Notes"), h("ul", { id: "dry-run-notes" }, report.notes.map((note) => h("li", {}, note)))] : null,
          ];
        }
        """#,
        "index.html": #"""
        <!doctype html>
        <html lang="en">
        <head>
        <meta charset="utf-8">
        <meta name="viewport" content="width=device-width, initial-scale=1">
        <meta name="color-scheme" content="light dark">
        <title>Tidings console</title>
        <link rel="stylesheet" href="/console/console.css">
        <script type="module" src="/console/app.js"></script>
        </head>
        <body>
        <a class="skip" href="#main">Skip to content</a>
        <header id="top" hidden>
          <strong class="brand">Tidings</strong>
          <label class="app-picker">App
            <select id="app-picker" aria-label="App"></select>
          </label>
          <nav aria-label="Pages">
            <ul id="nav">
              <li><a href="#/overview">Overview</a></li>
              <li><a href="#/compose">Compose</a></li>
              <li><a href="#/messages">Messages</a></li>
              <li><a href="#/journeys">Journeys</a></li>
              <li><a href="#/devices">Devices</a></li>
              <li><a href="#/events">Events</a></li>
              <li><a href="#/settings">Settings</a></li>
            </ul>
          </nav>
          <span id="who" class="who"></span>
          <button id="sign-out" type="button">Sign out</button>
        </header>
        <main id="main" tabindex="-1">
          <section id="sign-in" hidden>
            <h1>Sign in to Tidings</h1>
            <form id="sign-in-form">
              <label for="sign-in-name">Name</label>
              <input id="sign-in-name" name="name" autocomplete="username" required>
              <label for="sign-in-password">Password</label>
              <input id="sign-in-password" name="password" type="password" autocomplete="current-password" required>
              <button type="submit">Sign in</button>
              <p id="sign-in-error" class="error" role="alert"></p>
            </form>
            <form id="second-factor-form" hidden>
              <p>Two-factor sign-in is on for this operator.</p>
              <label for="sign-in-code">Code from your authenticator app, or a recovery code</label>
              <input id="sign-in-code" name="code" autocomplete="one-time-code" required maxlength="64">
              <button type="submit">Verify</button>
              <button id="second-factor-back" type="button">Back</button>
              <p id="second-factor-error" class="error" role="alert"></p>
            </form>
          </section>
          <div id="view" aria-live="polite"></div>
        </main>
        </body>
        </html>
        """#,
        "page-compose.js": #"""
        import { api, can } from "/console/api.js";
        import { dryRunError, dryRunReport } from "/console/dry-run.js";
        import { field, h, show } from "/console/dom.js";

        // NHN Cloud's limit, which keeps buttons readable on Android too; iOS itself would show four.
        const maximumButtons = 3;

        // The form is built from sections, each contributing to the request: adding "when", languages or variants
        // later means adding a section, not rewriting the page.
        function contentSection() {
          const inputs = {
            title: h("input", { name: "title", maxlength: "200" }),
            subtitle: h("input", { name: "subtitle", maxlength: "200" }),
            body: h("textarea", { name: "body", maxlength: "2000" }),
            media: h("input", { name: "media", type: "url", placeholder: "https://…/picture.jpg or .mp4" }),
            link: h("input", { name: "link", placeholder: "myapp://offer/42 or https://example.com" }),
            sound: h("input", { name: "sound", placeholder: "default" }),
            badge: h("input", { name: "badge", type: "number", min: "0" }),
            category: h("input", { name: "category" }),
            silent: h("input", { name: "silent", type: "checkbox" }),
          };
          const buttons = [];
          const buttonList = h("div");
          const addButton = h("button", { type: "button" }, "Add a button");
          function addButtonRow(title = "", url = "") {
            if (buttons.length >= maximumButtons) return;
            const row = { title: h("input", { value: title, maxlength: "40" }), url: h("input", { value: url }) };
            const index = buttons.length + 1;
            buttons.push(row);
            buttonList.append(h("fieldset", {}, h("legend", {}, `Button ${index}`),
              field("Button title", row.title), field("Button link (optional)", row.url)));
            addButton.disabled = buttons.length >= maximumButtons;
          }
          addButton.addEventListener("click", () => addButtonRow());
          const element = h("fieldset", {}, h("legend", {}, "Content"),
            field("Title", inputs.title), field("Subtitle", inputs.subtitle), field("Body", inputs.body),
            field("Image or video URL", inputs.media), field("Deep link or web link when tapped", inputs.link),
            field("Sound", inputs.sound), field("Badge", inputs.badge), field("Category", inputs.category),
            h("label", { class: "inline" }, inputs.silent, "Silent (background) push: no alert, wakes the app"),
            h("h3", {}, `Buttons (up to ${maximumButtons})`), buttonList, addButton);
          const action = (url) => ({ type: /^https?:/i.test(url) ? "web" : "deeplink", url });
          return {
            element, inputs,
            apply(request) {
              const content = {};
              for (const name of ["title", "subtitle", "body", "sound", "category"]) {
                if (inputs[name].value.trim()) content[name] = inputs[name].value.trim();
              }
              if (inputs.badge.value !== "") content.badge = Number(inputs.badge.value);
              if (inputs.media.value.trim()) content.media = { url: inputs.media.value.trim() };
              if (inputs.link.value.trim()) content.default_action = action(inputs.link.value.trim());
              const filled = buttons.filter((row) => row.title.value.trim());
              if (filled.length) {
                content.buttons = filled.map((row, index) => ({
                  id: `button_${index + 1}`, title: row.title.value.trim(),
                  action: row.url.value.trim() ? action(row.url.value.trim()) : { type: "open_app" },
                }));
              }
              request.content = content;
              request.kind = inputs.silent.checked ? "background" : "alert";
              if (inputs.silent.checked) request.priority = 5;
            },
            load(payload) {
              const alert = payload?.aps?.alert ?? {};
              inputs.title.value = alert.title ?? "";
              inputs.subtitle.value = alert.subtitle ?? "";
              inputs.body.value = alert.body ?? (typeof alert === "string" ? alert : "");
              inputs.sound.value = typeof payload?.aps?.sound === "string" ? payload.aps.sound : "";
              inputs.badge.value = payload?.aps?.badge ?? "";
              inputs.category.value = payload?.aps?.category ?? "";
            },
          };
        }

        function audienceSection(onChange) {
          const kinds = [["all", "Everyone"], ["audience", "Audience expression"], ["tags", "Tag expression"],
            ["user_ids", "Users"], ["installation_ids", "Installations"]];
          const radios = kinds.map(([value, label], index) =>
            h("label", { class: "inline" }, h("input", { type: "radio", name: "audience", value, checked: index === 0 }), label));
          const detail = h("input", { name: "audience_detail",
            placeholder: "language = ja and app_version >= 2.3 and last_seen > 30d ago; vip AND ios; or ids" });
          const count = h("p", { class: "muted", "aria-live": "polite", id: "audience-count" });
          const element = h("fieldset", {}, h("legend", {}, "Audience"), radios, field("Expression, tags or ids", detail),
            h("p", { class: "muted" }, "Audience expressions combine tags with device fields (language, region, time zone, ",
              "app and OS version, platform, last seen, consents); see docs/audiences.md."), count);
          const kind = () => element.querySelector("input[name=audience]:checked").value;
          element.addEventListener("input", onChange);
          element.addEventListener("change", onChange);
          return {
            element, count,
            target() {
              const value = detail.value.trim();
              switch (kind()) {
                case "audience": return { audience: value };
                case "tags": return { tags: value };
                case "user_ids": return { user_ids: value.split(/[\s,]+/).filter(Boolean) };
                case "installation_ids": return { installation_ids: value.split(/[\s,]+/).filter(Boolean) };
                default: return { all: true };
              }
            },
            apply(request) { request.target = this.target(); },
          };
        }

        // Content per language: each row is a language tag and the text that replaces the default's, so a device gets
        // the best match for its language (exact tag, then the language alone, then the default).
        function languagesSection(content) {
          const rows = [];
          const list = h("div");
          const add = h("button", { type: "button", id: "add-language" }, "Add a language");
          add.addEventListener("click", () => {
            const row = {
              tag: h("input", { name: `language_${rows.length}`, placeholder: "ja, en-GB", maxlength: "35" }),
              title: h("input", { name: `language_${rows.length}_title`, maxlength: "200" }),
              body: h("textarea", { name: `language_${rows.length}_body`, maxlength: "2000" }),
            };
            rows.push(row);
            list.append(h("fieldset", {}, h("legend", {}, `Language ${rows.length}`),
              field("Language tag", row.tag), field("Title in this language", row.title),
              field("Body in this language", row.body)));
            row.tag.focus();
          });
          const element = h("fieldset", {}, h("legend", {}, "Languages"),
            h("p", { class: "muted" }, "Devices whose language matches none of these get the content above."), list, add);
          return {
            element,
            apply(request) {
              const filled = rows.filter((row) => row.tag.value.trim());
              if (!filled.length) return;
              const localized = { default: request.content };
              for (const row of filled) {
                const text = { ...request.content };
                if (row.title.value.trim()) text.title = row.title.value.trim();
                if (row.body.value.trim()) text.body = row.body.value.trim();
                localized[row.tag.value.trim()] = text;
              }
              request.content = localized;
            },
          };
        }

        // A split test: variant A is the content above, variant B replaces its title and body; a control share gets
        // nothing and is counted, so lift can be measured.
        function variantsSection() {
          const enabled = h("input", { type: "checkbox", name: "split_test", id: "split-test" });
          const inputs = {
            title: h("input", { name: "variant_b_title", maxlength: "200" }),
            body: h("textarea", { name: "variant_b_body", maxlength: "2000" }),
            weightA: h("input", { name: "variant_a_weight", type: "number", min: "1", max: "1000", value: "1" }),
            weightB: h("input", { name: "variant_b_weight", type: "number", min: "1", max: "1000", value: "1" }),
            control: h("input", { name: "control_percent", type: "number", min: "0", max: "50", value: "0" }),
          };
          const details = h("div", { hidden: true },
            field("Variant B title", inputs.title), field("Variant B body", inputs.body),
            field("Weight of variant A", inputs.weightA), field("Weight of variant B", inputs.weightB),
            field("Control group (% that gets nothing)", inputs.control));
          enabled.addEventListener("change", () => { details.hidden = !enabled.checked; });
          const element = h("fieldset", {}, h("legend", {}, "Split test"),
            h("label", { class: "inline" }, enabled, "Send two variants and compare their open rates"), details);
          // Replaces title and body in one content, or in each language of a localized one.
          const variantB = (content) => {
            const replace = (text) => ({ ...text,
              ...(inputs.title.value.trim() ? { title: inputs.title.value.trim() } : {}),
              ...(inputs.body.value.trim() ? { body: inputs.body.value.trim() } : {}) });
            if (!("default" in content)) return replace(content);
            return Object.fromEntries(Object.entries(content).map(([key, text]) => [key, replace(text)]));
          };
          return {
            element,
            apply(request) {
              if (!enabled.checked) return;
              request.variants = [
                { id: "a", weight: Number(inputs.weightA.value) || 1, content: request.content },
                { id: "b", weight: Number(inputs.weightB.value) || 1, content: variantB(request.content) },
              ];
              delete request.content;
              const control = Number(inputs.control.value);
              if (control > 0) request.control = control / 100;
            },
          };
        }

        // When: now, at a moment, or at a wall-clock time in each device's own time zone.
        function whenSection() {
          const kinds = [["now", "Now"], ["at", "At a time"], ["local", "At this time in each device's time zone"]];
          const radios = kinds.map(([value, label], index) =>
            h("label", { class: "inline" }, h("input", { type: "radio", name: "when", value, checked: index === 0 }), label));
          const moment = h("input", { name: "send_time", type: "datetime-local" });
          const fallback = h("input", { name: "fallback_time_zone",
            value: Intl.DateTimeFormat().resolvedOptions().timeZone || "UTC", placeholder: "Europe/Berlin" });
          const ifPast = h("input", { type: "checkbox", name: "if_past" });
          const details = h("div", { hidden: true }, field("Date and time", moment),
            h("div", { class: "local-only" }, field("Time zone of devices whose zone is unknown", fallback)),
            h("label", { class: "inline" }, ifPast, "Where that time has passed, send at once (else refused or skipped)"));
          const element = h("fieldset", {}, h("legend", {}, "When"), radios, details);
          const kind = () => element.querySelector("input[name=when]:checked").value;
          element.addEventListener("change", () => {
            details.hidden = kind() === "now";
            details.querySelector(".local-only").hidden = kind() !== "local";
          });
          return {
            element,
            get scheduled() { return kind() !== "now"; },
            apply(request) {
              if (kind() === "now" || !moment.value) return;
              // The browser's zone turns the picked wall-clock time into one instant; a local-time send keeps it as
              // written, for the server to place in each device's zone.
              if (kind() === "at") request.send_at = new Date(moment.value).toISOString().replace(/\.\d{3}Z$/, "Z");
              else {
                request.local_time = moment.value.slice(0, 16);
                if (fallback.value.trim()) request.fallback_time_zone = fallback.value.trim();
              }
              if (ifPast.checked) request.if_past = "send_now";
            },
          };
        }

        function lockScreen(report) {
          const alert = report.alert ?? {};
          const now = new Date();
          const notification = h("div", { class: "notification" },
            h("div", { class: "head" }, h("span", {}, "YOUR APP"), h("span", {}, "now")),
            alert.title ? h("div", { class: "title" }, alert.title) : null,
            alert.subtitle ? h("div", { class: "title" }, alert.subtitle) : null,
            alert.body ? h("div", {}, alert.body) : null,
            report.media?.url && report.media.type === "image" ? h("img", { src: report.media.url, alt: "" }) : null,
            report.media?.url && report.media.type !== "image" ? h("div", { class: "muted" }, `▶ ${report.media.type}`) : null,
            report.buttons?.length ? h("div", { class: "buttons" }, report.buttons.map((button) => h("span", {}, button.title))) : null);
          return h("div", { class: "lock-screen", role: "img", "aria-label": "Lock screen preview" },
            h("div", { class: "clock" }, `${now.getHours()}:${String(now.getMinutes()).padStart(2, "0")}`),
            report.content_available && !alert.title && !alert.body ?
              h("p", {}, "Silent push: nothing is shown") : notification);
        }

        export async function composePage(view, duplicateOf) {
          const lockScreenView = h("div", { id: "preview" });
          const lint = h("div", { class: "lint", "aria-live": "polite", id: "lint" });
          const result = h("p", { "aria-live": "polite", id: "send-result" });
          let timer = null;
          const content = contentSection();
          const audience = audienceSection(() => schedule());
          const when = whenSection();
          // In page order; each adds its part to the request, languages and the split test wrapping the content.
          const sections = [content, languagesSection(content), variantsSection(), audience, when];
          const request = () => {
            const body = {};
            for (const section of sections) section.apply(body);
            return body;
          };

          // The checks and the lock-screen preview of one payload.
          async function lintPayload(single) {
            try {
              const checked = await api("POST", "/v1/lint", single);
              const warnings = checked.report.warnings;
              show(lockScreenView, lockScreen(checked.report));
              show(lint, h("h2", {}, "Checks"), warnings.length === 0 ? h("p", { class: "ok" }, "No findings.") :
                h("ul", {}, warnings.map((warning) => h("li", { class: warning.severity }, `${warning.severity}: ${warning.message}`))),
                h("p", { class: "muted" }, `${checked.report.size_bytes} of ${checked.report.size_limit} bytes`));
            } catch (error) {
              show(lint, h("h2", {}, "Checks"), h("p", { class: "error" }, error.message));
            }
          }

          async function check() {
            const body = request();
            // The linter judges one payload: the default content, as most devices will get it.
            const single = {};
            content.apply(single);
            // An empty form is not a payload to judge (the server refuses it): lint only what the person has written.
            if (Object.keys(single.content).length > 0 || single.kind === "background") {
              await lintPayload(single);
            } else {
              show(lockScreenView);
              show(lint, h("h2", {}, "Checks"), h("p", { class: "muted", id: "lint-waiting" }, "Checked as you write."));
            }
            try {
              const size = await api("POST", "/v1/audience", { target: body.target });
              audience.count.textContent = `Reaches ${size.installations} installation(s) now.`;
            } catch (error) {
              audience.count.textContent = error.message;
            }
          }
          function schedule() {
            clearTimeout(timer);
            timer = setTimeout(check, 300);
          }

          // The Preview step: the server's dry run of exactly this request, which sends and stores nothing. Send is
          // offered only for the request last previewed, and sends that request, so what goes out is what was seen.
          const previewSection = h("section", { id: "dry-run", "aria-labelledby": "dry-run-heading", hidden: true });
          const previewStatus = h("div", { id: "dry-run-status", role: "status" });
          const previewBody = h("div", { id: "dry-run-body" });
          previewSection.append(h("h2", { id: "dry-run-heading", tabindex: "-1" }, "Preview of the send"), previewStatus,
            previewBody);
          // { json, report }: the request as previewed (without dry_run) and the server's answer.
          let previewed = null;
          const current = () => JSON.stringify(request());
          const previewIsCurrent = () => previewed !== null && previewed.json === current();

          const testTarget = h("input", { name: "test_installation" });
          const editor = can("editor");
          const previewButton = h("button", { type: "button", id: "preview-send", disabled: !editor }, "Preview");
          const sendButton = h("button", { type: "submit", class: "primary", id: "send-now", disabled: true }, "Send now");
          const sendHint = h("p", { class: "muted", id: "send-hint" });

          // Send follows the preview: enabled while the form still says what was previewed.
          function syncSend() {
            sendButton.textContent = when.scheduled ? "Schedule" : "Send now";
            const ready = editor && previewIsCurrent();
            sendButton.disabled = !ready;
            let hint = "Preview first: it shows who would get this and what their devices show, sending nothing.";
            if (!editor) hint = "Viewers see the lock-screen preview and checks; previewing a send and sending need an editor.";
            else if (ready) hint = `${sendButton.textContent} ${when.scheduled ? "schedules" : "sends"} exactly what the preview below shows.`;
            else if (previewed) hint = "The form has changed since the preview: preview again to send.";
            // Only a change touches the page, so a screen reader announces it once, not at every key.
            if (sendHint.textContent !== hint) sendHint.textContent = hint;
            const stale = previewed !== null && !ready;
            if (stale !== (previewStatus.querySelector(".stale") !== null)) {
              show(previewStatus, stale ? h("p", { class: "stale" }, h("strong", {}, "Out of date: "),
                "the form has changed since this preview. Preview again to see and send the new version.") : null);
            }
          }

          async function previewSend() {
            const json = current();
            previewed = null;
            previewSection.hidden = false;
            previewButton.disabled = true;
            show(previewStatus, h("p", { class: "muted" }, "Previewing…"));
            show(previewBody);
            try {
              const report = await api("POST", "/v1/messages", { ...JSON.parse(json), dry_run: true });
              // A server without dry runs refuses the field; an answer that is not a dry run is never taken for one.
              if (report?.dry_run !== true) throw new Error("the server did not answer with a dry run");
              previewed = { json, report };
              show(previewStatus);
              show(previewBody, dryRunReport(report));
            } catch (error) {
              show(previewStatus);
              show(previewBody, dryRunError(error));
            } finally {
              previewButton.disabled = !editor;
              syncSend();
              previewSection.querySelector("#dry-run-heading").focus();
            }
          }

          async function send(target, label) {
            result.className = "";
            result.textContent = `${label}…`;
            try {
              const body = target ? request() : JSON.parse(previewed.json);
              if (target) {
                // A test goes out now, whatever the message's schedule.
                body.target = target;
                for (const name of ["send_at", "local_time", "fallback_time_zone", "if_past"]) delete body[name];
              }
              const accepted = await api("POST", "/v1/messages", body);
              if (target) {
                result.className = "ok";
                result.textContent = `Test sent: ${accepted.message_id} (${accepted.queued} queued).`;
              } else {
                location.hash = `#/messages/${encodeURIComponent(accepted.message_id)}`;
              }
            } catch (error) {
              result.className = "error";
              result.textContent = error.message;
            }
          }
          previewButton.addEventListener("click", previewSend);
          const form = h("form", { id: "compose-form" }, sections.map((section) => section.element),
            h("fieldset", {}, h("legend", {}, "Send"),
              field("Send a test to one installation", testTarget),
              h("div", { class: "row" },
                h("button", { type: "button", id: "send-test", disabled: !editor,
                  onclick: () => testTarget.value.trim() && send({ installation_ids: [testTarget.value.trim()] }, "Sending test") },
                  "Send test"),
                previewButton, sendButton),
              sendHint, result));
          form.addEventListener("submit", (event) => {
            event.preventDefault();
            if (!editor || !previewIsCurrent()) return;
            const reach = previewed.report.reach;
            const skipped = Object.values(reach.skipped ?? {}).reduce((sum, count) => sum + count, 0);
            const who = `${reach.would_send} installation(s)${skipped ? `, ${skipped} skipped` : ""}`;
            if (confirm(when.scheduled ? `Schedule for ${who}?` : `Send to ${who}?`)) send(null, when.scheduled ? "Scheduling" : "Sending");
          });
          form.addEventListener("input", () => { schedule(); syncSend(); });
          form.addEventListener("change", syncSend);
          syncSend();
          show(view, h("h1", {}, "Compose"), h("div", { class: "split" }, form,
            h("aside", { "aria-label": "Lock screen and checks" }, h("h2", {}, "Lock screen"), lockScreenView, lint)),
            previewSection);
          if (duplicateOf) {
            const page = await api("GET", "/v1/stats/messages?limit=100");
            const original = page.messages.find((message) => message.message_id === duplicateOf);
            if (original) content.load(original.payload);
          }
          await check();
          content.inputs.title.focus();
        }
        """#,
        "page-devices.js": #"""
        import { api } from "/console/api.js";
        import { field, h, show, table, time } from "/console/dom.js";

        export async function devicesPage(view) {
          const input = h("input", { type: "search", name: "q", placeholder: "installation id, user id, token prefix or tag" });
          const results = h("div", { "aria-live": "polite" });
          const form = h("form", { role: "search" },
            field("Find a device", input),
            h("button", { type: "submit", class: "primary" }, "Search"));
          form.addEventListener("submit", async (event) => {
            event.preventDefault();
            const query = input.value.trim();
            if (!query) return;
            try {
              const found = await api("GET", `/v1/devices/search?q=${encodeURIComponent(query)}`);
              show(results, found.installations.length === 0 ? h("p", {}, "No device matches.") :
                table(["Installation", "Platform", "User", "Matched on", "Updated"],
                  found.installations.map((device) => [
                    h("a", { href: `#/devices/${encodeURIComponent(device.installation_id)}` }, device.installation_id),
                    device.platform, device.user_id ?? "", device.matched, time(device.updated_at),
                  ])));
            } catch (error) {
              show(results, h("p", { class: "error", role: "alert" }, error.message));
            }
          });
          show(view, h("h1", {}, "Devices"), form, results);
          input.focus();
        }

        export async function devicePage(view, installationID) {
          const data = await api("GET", `/v1/installations/${encodeURIComponent(installationID)}/timeline?limit=100`);
          const device = data.installation;
          const yesNo = (value) => (value === null ? "unknown" : value ? "yes" : "no");
          const timeline = [
            ...data.events.map((event) => ({
              at: event.occurred_at, what: `event: ${event.type}`, message: event.message_id ?? "",
              detail: [event.action_id, event.value].filter(Boolean).join(" "),
            })),
            ...data.deliveries.map((delivery) => ({
              at: delivery.updated_at, what: `delivery: ${delivery.state}`, message: delivery.message_id,
              detail: [delivery.reason, `${delivery.attempts} attempt(s) via ${delivery.token_type}`].filter(Boolean).join(" · "),
            })),
          ].sort((a, b) => b.at - a.at);
          show(view,
            h("p", {}, h("a", { href: "#/devices" }, "← Devices")),
            h("h1", {}, `Device ${device.installation_id}`),
            h("div", { class: "split" },
              h("section", { "aria-labelledby": "tokens-heading" },
                h("h2", { id: "tokens-heading" }, "Tokens"),
                table(["Kind", "Token (masked)"], [
                  ["APNs", device.apns_token ?? "—"], ["VoIP", device.voip_token ?? "—"], ["FCM", device.fcm_token ?? "—"],
                ]),
                h("h2", {}, "Consents"),
                table(["Consent", "Given"], [
                  ["Notifications", yesNo(device.consents.notifications)], ["Ads", yesNo(device.consents.ads)],
                  ["Night-time ads", yesNo(device.consents.night_ads)], ["Permission", device.permission ?? "unknown"],
                ])),
              h("section", {},
                h("h2", {}, "Context"),
                table(["Field", "Value"], [
                  ["Platform", device.platform], ["User", device.user_id ?? "—"], ["Time zone", device.timezone ?? "—"],
                  ["Language", device.language ?? "—"], ["Locale", device.locale ?? "—"],
                  ["App version", device.app_version ?? "—"], ["OS", `${device.os_name ?? ""} ${device.os_version ?? ""}`],
                  ["Model", device.device_model ?? "—"], ["Environment", device.environment ?? "—"],
                  ["Registered", time(device.created_at)],
                ]),
                h("h2", {}, "Tags"),
                h("p", {}, data.tags.length ? data.tags.join(", ") : "No tags."))),
            h("h2", {}, "Timeline"),
            timeline.length === 0 ? h("p", {}, "Nothing yet.") :
              table(["When", "What", "Message", "Detail"], timeline.map((entry) => [
                time(entry.at), entry.what,
                entry.message ? h("a", { href: `#/messages/${encodeURIComponent(entry.message)}` }, entry.message) : "",
                entry.detail,
              ]), "Events and deliveries, newest first"));
        }
        """#,
        "page-events.js": #"""
        import { api, session } from "/console/api.js";
        import { field, h, show, table, time } from "/console/dom.js";

        const types = ["", "delivery", "open", "dismiss", "action", "reply", "link_open", "deeplink_open", "token_register",
          "token_unregister", "permission_change", "silent_received", "media_failed", "uninstall"];

        export async function eventsPage(view) {
          const type = h("select", { name: "type" }, types.map((name) => h("option", { value: name }, name || "any")));
          const message = h("input", { name: "message_id" });
          const campaign = h("input", { name: "campaign_id" });
          const since = h("input", { type: "datetime-local", name: "since" });
          const until = h("input", { type: "datetime-local", name: "until" });
          const results = h("div", { "aria-live": "polite" });
          const cursors = [];
          let next = null;

          const query = (cursor) => {
            const parameters = new URLSearchParams({ limit: "50" });
            if (type.value) parameters.set("type", type.value);
            if (message.value) parameters.set("message_id", message.value.trim());
            if (campaign.value) parameters.set("campaign_id", campaign.value.trim());
            if (since.value) parameters.set("since", String(new Date(since.value).getTime()));
            if (until.value) parameters.set("until", String(new Date(until.value).getTime()));
            if (cursor) parameters.set("cursor", cursor);
            return parameters;
          };

          async function load(cursor) {
            try {
              const page = await api("GET", `/v1/events?${query(cursor)}`);
              next = page.next_cursor;
              show(results,
                table(["When", "Type", "Installation", "Message", "Campaign", "Detail"], page.events.map((event) => [
                  time(event.occurred_at), event.type,
                  h("a", { href: `#/devices/${encodeURIComponent(event.installation_id)}` }, event.installation_id),
                  event.message_id ?? "", event.campaign_id ?? "", [event.action_id, event.value].filter(Boolean).join(" "),
                ]), `${page.events.length} events, page ${cursors.length + 1}`),
                h("div", { class: "row" },
                  h("button", { type: "button", disabled: cursors.length === 0, onclick: () => load(cursors.pop() || null) },
                    "Previous page"),
                  h("button", { type: "button", disabled: !next, onclick: () => { cursors.push(cursor); load(next); } },
                    "Next page")));
            } catch (error) {
              show(results, h("p", { class: "error", role: "alert" }, error.message));
            }
          }

          async function download(accept, extension) {
            const parameters = query(null);
            parameters.set("limit", "100000");
            const response = await fetch(`/v1/events?${parameters}`, {
              headers: { Accept: accept, "X-Tidings-App": session.app }, credentials: "same-origin",
            });
            if (!response.ok) {
              show(results, h("p", { class: "error", role: "alert" }, `Export failed: ${response.status}`));
              return;
            }
            const link = h("a", { href: URL.createObjectURL(await response.blob()), download: `events.${extension}` });
            document.body.append(link);
            link.click();
            link.remove();
          }

          const form = h("form", {},
            h("div", { class: "row" },
              h("div", {}, field("Type", type)), h("div", {}, field("Message id", message)),
              h("div", {}, field("Campaign id", campaign)), h("div", {}, field("From", since)),
              h("div", {}, field("Until", until))),
            h("div", { class: "row" },
              h("button", { type: "submit", class: "primary" }, "Filter"),
              h("button", { type: "button", onclick: () => download("text/csv", "csv") }, "Download CSV"),
              h("button", { type: "button", onclick: () => download("application/x-ndjson", "ndjson") }, "Download NDJSON")));
          form.addEventListener("submit", (event) => {
            event.preventDefault();
            cursors.length = 0;
            load(null);
          });
          show(view, h("h1", {}, "Events"), form, results);
          await load(null);
        }
        """#,
        "page-journeys.js": #"""
        // Journeys (docs/journeys.md): the list, a journey's page with each step's numbers, and the builder, where a
        // journey is a list of steps the server validates before anything is stored.
        import { api, can } from "/console/api.js";
        import { setPageTimer } from "/console/app.js";
        import { field, h, show, table, time } from "/console/dom.js";

        const stepTypes = ["send", "wait", "branch", "split", "exit"];
        const units = [["seconds", 1], ["minutes", 60], ["hours", 3600], ["days", 86400]];
        const shortUnits = { seconds: "s", minutes: "min", hours: "h", days: "d" };
        // Seconds in the largest unit that divides them: [unit, amount].
        const inUnits = (seconds) => units.slice().reverse().map(([unit, length]) =>
          seconds % length === 0 ? [unit, seconds / length] : null).find(Boolean) ?? ["seconds", seconds];
        // A labelled control in a row of them, kept together.
        const cell = (label, control) => h("div", {}, field(label, control));
        const link = (id, text) => h("a", { href: `#/journeys/${encodeURIComponent(id)}` }, text ?? id);
        const total = (exited) => typeof exited === "number" ? exited :
          Object.values(exited ?? {}).reduce((sum, count) => sum + count, 0);

        function triggerText(trigger) {
          if (!trigger) return "–";
          const narrowed = (where) => where ? ` (${[where.value !== undefined ? `value = ${where.value}` : null,
            ...Object.entries(where.attributes ?? {}).map(([key, value]) => `${key} = ${value}`)].filter(Boolean).join(", ")})` : "";
          if (trigger.event) return `event ${trigger.event}${narrowed(trigger.where)}`;
          if (trigger.attribute) return `attribute ${trigger.attribute}${trigger.becomes !== undefined ? ` becomes ${trigger.becomes}` : ""}`;
          if (trigger.segment) return `joins segment ${trigger.segment}${trigger.include_current_members ? " (current members too)" : ""}`;
          if (trigger.schedule) {
            const schedule = trigger.schedule;
            return `every ${schedule.every}${schedule.weekday ? ` on ${schedule.weekday}` : ""} at ${schedule.at}` +
              (schedule.audience ? ` for ${schedule.audience}` : "");
          }
          return JSON.stringify(trigger);
        }

        export async function journeysPage(view) {
          const answer = await api("GET", "/v1/journeys");
          show(view, h("h1", {}, "Journeys"),
            h("p", { class: "muted" }, "Messages sent because of what each person does: a trigger enters them, then they walk the steps on their own."),
            can("editor") ? h("p", {}, h("a", { href: "#/journeys/new", id: "new-journey" }, "Build a new journey")) : null,
            answer.journeys.length ? table(["Journey", "State", "Version", "Trigger", "Entered", "In it", "Completed", "Exited", "Updated"],
              answer.journeys.map((journey) => [link(journey.journey_id, journey.name), journey.state, journey.version,
                triggerText(journey.trigger), journey.entered ?? 0, journey.active ?? 0, journey.completed ?? 0,
                total(journey.exited), time(journey.updated_at)]))
              : h("p", { class: "muted" }, "No journeys yet."));
        }

        // What a step does and where it goes, in a few words, from its definition.
        function stepText(step, following) {
          const next = step.next ?? following ?? "end";
          const or = (key) => step[key] ?? following ?? "end";
          const span = (seconds) => {
            const [unit, amount] = inUnits(seconds);
            return `${amount} ${shortUnits[unit]}`;
          };
          switch (step.type) {
            case "send": {
              const content = step.message?.content ?? {};
              return `“${content.title ?? content.default?.title ?? "push"}” → ${next}`;
            }
            case "wait":
              if (step.duration !== undefined) return `${span(step.duration)} → ${next}`;
              if (step.until_local_time) return `until ${step.until_local_time} local → ${next}`;
              return `for ${step.for_event}${step.timeout ? ` up to ${span(step.timeout)}` : ""}: event → ${or("on_event")}, timeout → ${or("on_timeout")}`;
            case "branch":
              return `${step.audience ? `audience ${step.audience}` : `did ${step.event}`}: then → ${or("then")}, else → ${or("else")}`;
            case "split":
              return (step.paths ?? []).map((path) => `${path.weight} → ${path.control ? "control" : path.next}`).join(", ");
            default:
              return "";
          }
        }

        // Each send step's split test that picks a winner: where it stands, then each arm's numbers.
        function splitTests(steps) {
          const tested = steps.filter((step) => step.winner);
          if (!tested.length) return null;
          const time = (ms) => ms ? new Date(ms).toISOString() : "–";
          const rate = (value) => value == null ? "–" : `${(value * 100).toFixed(1)}%`;
          return h("section", { id: "journey-split-tests", "aria-labelledby": "journey-split-tests-heading" },
            h("h2", { id: "journey-split-tests-heading" }, "Split tests"),
            tested.map((step) => {
              const test = step.winner;
              const verdict = test.state === "decided"
                ? `decided ${test.variant ?? "–"} at ${time(test.decided_at)} (${test.inconclusive ? "inconclusive" : "significant"})`
                : `testing until ${time(test.test_ends_at)}, deciding at ${time(test.decide_at)}`;
              return h("div", { class: "split-test", "data-step": step.id },
                h("p", {}, h("strong", {}, step.id), ` (version ${test.version}): ${verdict}`),
                table(["Variant", "Sent", "Converted", "Rate"],
                  (test.variants ?? []).map((arm) => [arm.variant, arm.sent ?? 0, arm.converted ?? 0, rate(arm.rate)])));
            }));
        }

        export async function journeyPage(view, journeyID) {
          const status = h("p", { class: "muted", id: "journey-state", "aria-live": "polite" });
          const actions = h("div", { class: "row" });
          const body = h("div");
          const editor = can("editor");

          async function transition(action) {
            try {
              await api("POST", `/v1/journeys/${encodeURIComponent(journeyID)}/${action}`);
              await refresh();
            } catch (error) {
              status.textContent = error.message;
            }
          }

          async function refresh() {
            const journey = await api("GET", `/v1/journeys/${encodeURIComponent(journeyID)}`);
            const definition = journey.definition ?? {};
            const steps = definition.steps ?? [];
            const counted = new Map((journey.steps ?? []).map((step) => [step.id, step]));
            const send = (step, counts, key) => step.type === "send" ? counts?.[key] ?? 0 : "";
            const reasons = (exited) => Object.entries(exited ?? {}).filter(([, count]) => count > 0)
              .sort((a, b) => b[1] - a[1]).map(([reason, count]) => `${reason} ${count}`).join(", ");
            const rows = steps.map((step, index) => {
              const counts = counted.get(step.id);
              const exited = total(counts?.exited);
              return [h("strong", {}, step.id), step.type, stepText(step, steps[index + 1]?.id), counts?.entered ?? 0,
                counts?.waiting ?? 0, send(step, counts, "sent"), send(step, counts, "skipped"), send(step, counts, "delivered"),
                send(step, counts, "opened"), send(step, counts, "converted"),
                exited ? `${exited} (${reasons(counts.exited)})` : "0"];
            });
            const exits = Object.entries(journey.exited ?? {}).filter(([, count]) => count > 0).sort((a, b) => b[1] - a[1]);
            show(body,
              h("dl", { class: "facts" },
                h("dt", {}, "Trigger"), h("dd", {}, triggerText(journey.trigger ?? definition.trigger)),
                h("dt", {}, "Entry"), h("dd", {}, { once: "once ever", once_every: `at most once every ${definition.entry?.days} days` }[definition.entry?.rule] ?? "every time"),
                h("dt", {}, "Exit on"), h("dd", {}, (definition.exit ?? []).map((condition) => condition.event).join(", ") || "–")),
              h("section", { id: "journey-steps", "aria-labelledby": "journey-steps-heading" },
                h("h2", { id: "journey-steps-heading" }, "Steps"),
                table(["Step", "Type", "What", "Entered", "Waiting", "Sent", "Skipped", "Delivered", "Opened", "Converted", "Exited"], rows)),
              splitTests(journey.steps ?? []),
              h("section", { id: "journey-exits" }, h("h2", {}, "Exited by reason"),
                exits.length ? table(["Reason", "People"], exits) : h("p", { class: "muted" }, "No one has exited.")),
              h("p", { class: "muted" }, `Versions: ${(journey.versions ?? []).map((version) => version.version ?? version).join(", ") || journey.version}.`));
            status.textContent = `State: ${journey.state} · version ${journey.version} · ${journey.entered ?? 0} entered, ` +
              `${journey.active ?? 0} in it, ${journey.completed ?? 0} completed, ${total(journey.exited)} exited · updating every 2 s`;
            status.dataset.state = journey.state;
            const allowed = { draft: ["start", "archive"], active: ["pause", "archive"], paused: ["start", "archive"] }[journey.state] ?? [];
            show(actions, editor ? [
              allowed.includes("start") ? h("button", { type: "button", class: "primary", id: "journey-start", onclick: () => transition("start") },
                journey.state === "paused" ? "Resume" : "Start") : null,
              allowed.includes("pause") ? h("button", { type: "button", id: "journey-pause", onclick: () => transition("pause") }, "Pause") : null,
              allowed.includes("archive") ? h("button", { type: "button", class: "danger", id: "journey-archive", onclick: () => {
                if (confirm("Archive? No one enters again; everyone in it finishes.")) transition("archive");
              } }, "Archive") : null,
              journey.state !== "archived" ? h("a", { href: `#/journeys/${encodeURIComponent(journeyID)}/edit`, id: "journey-edit" }, "Edit (a new version)") : null,
            ] : null);
          }

          show(view, h("p", {}, h("a", { href: "#/journeys" }, "← Journeys")), h("h1", {}, `Journey ${journeyID}`),
            status, actions, body);
          await refresh();
          // People move through the steps while the page is open: poll until it is left.
          setPageTimer(setInterval(() => refresh().catch(() => {}), 2000));
        }

        // The builder's model: the definition as edited, each step with the builder's choices (which kind of wait or
        // branch, the unit of a duration) beside its fields; `definition()` turns it into what the API takes.
        function stepFrom(step) {
          const model = { id: step.id ?? "", type: step.type ?? "send", next: step.next ?? "" };
          const content = step.message?.content ?? {};
          model.title = content.title ?? "";
          model.body = content.body ?? "";
          model.message = step.message;
          model.wait = step.until_local_time ? "until_local_time" : step.for_event ? "for_event" : "duration";
          const seconds = step.duration ?? 3600;
          [model.unit, model.amount] = inUnits(seconds);
          model.until = step.until_local_time ?? "09:00";
          model.forEvent = step.for_event ?? "";
          model.timeout = step.timeout ?? 86400;
          model.onEvent = step.on_event ?? "";
          model.onTimeout = step.on_timeout ?? "";
          model.branch = step.event ? "event" : "audience";
          model.condition = step.audience ?? step.event ?? "";
          model.then = step.then ?? "";
          model.else = step.else ?? "";
          model.paths = (step.paths ?? [{ weight: 50, next: "" }, { weight: 50, control: true }])
            .map((path) => ({ weight: path.weight, next: path.next ?? "", control: path.control === true }));
          return model;
        }

        function stepDefinition(model) {
          const step = { id: model.id.trim(), type: model.type };
          const target = (value) => value || undefined;
          switch (model.type) {
            case "send": {
              const content = { ...(model.message?.content ?? {}) };
              delete content.title;
              delete content.body;
              if (model.title.trim()) content.title = model.title.trim();
              if (model.body.trim()) content.body = model.body.trim();
              step.message = { ...(model.message ?? {}), content };
              step.next = target(model.next);
              break;
            }
            case "wait":
              if (model.wait === "duration") {
                step.duration = Number(model.amount) * units.find(([unit]) => unit === model.unit)[1];
                step.next = target(model.next);
              } else if (model.wait === "until_local_time") {
                step.until_local_time = model.until;
                step.next = target(model.next);
              } else {
                step.for_event = model.forEvent.trim();
                step.timeout = Number(model.timeout);
                step.on_event = target(model.onEvent);
                step.on_timeout = target(model.onTimeout);
              }
              break;
            case "branch":
              step[model.branch] = model.condition.trim();
              step.then = target(model.then);
              step.else = target(model.else);
              break;
            case "split":
              step.paths = model.paths.map((path) => path.control ? { weight: Number(path.weight), control: true } :
                { weight: Number(path.weight), next: path.next });
              break;
            default:
              break;
          }
          return JSON.parse(JSON.stringify(step));
        }

        export async function journeyBuilderPage(view, journeyID) {
          if (!can("editor")) {
            show(view, h("h1", {}, "Journeys"), h("p", { class: "muted" }, "Building and editing journeys needs an editor."),
              h("p", {}, h("a", { href: "#/journeys" }, "← Journeys")));
            return;
          }
          const existing = journeyID ? await api("GET", `/v1/journeys/${encodeURIComponent(journeyID)}`) : null;
          const start = existing?.definition ?? {
            name: "", trigger: { event: "" }, entry: { rule: "every_time" }, exit: [],
            steps: [{ id: "pause", type: "wait", duration: 3600 }, { id: "remind", type: "send", message: { content: {} } }],
          };
          const steps = start.steps.map(stepFrom);
          let errors = [];

          const name = h("input", { name: "journey_name", maxlength: "200", value: start.name ?? "", required: true });
          const trigger = start.trigger ?? {};
          const triggerKind = h("select", { name: "trigger_kind" },
            [["event", "An event"], ["attribute", "An attribute changes"], ["segment", "Joins a segment"],
              ["schedule", "A schedule"]].map(([value, label]) =>
              h("option", { value, selected: trigger[value] !== undefined }, label)));
          const triggerInputs = {
            event: h("input", { name: "trigger_event", value: trigger.event ?? "", placeholder: "add_to_cart" }),
            whereValue: h("input", { name: "trigger_where_value", value: trigger.where?.value ?? "", placeholder: "optional" }),
            attribute: h("input", { name: "trigger_attribute", value: trigger.attribute ?? "", placeholder: "plan, or user.plan for the profile's" }),
            becomes: h("input", { name: "trigger_becomes", value: trigger.becomes ?? "", placeholder: "optional: pro" }),
            segment: h("input", { name: "trigger_segment", value: trigger.segment ?? "", placeholder: "a saved segment's name" }),
            currentMembers: h("input", { name: "trigger_include_current_members", type: "checkbox",
              checked: trigger.include_current_members === true }),
            every: h("select", { name: "trigger_every" }, ["day", "week"].map((value) =>
              h("option", { value, selected: trigger.schedule?.every === value }, value))),
            at: h("input", { name: "trigger_at", type: "time", value: trigger.schedule?.at ?? "09:00" }),
            weekday: h("select", { name: "trigger_weekday" }, ["monday", "tuesday", "wednesday", "thursday", "friday", "saturday",
              "sunday"].map((value) => h("option", { value, selected: trigger.schedule?.weekday === value }, value))),
            audience: h("input", { name: "trigger_audience", value: trigger.schedule?.audience ?? "", placeholder: "tag:vip" }),
          };
          const triggerParts = {
            event: h("div", {}, field("Event type", triggerInputs.event), field("Only when its value is", triggerInputs.whereValue)),
            attribute: h("div", {}, field("Custom attribute", triggerInputs.attribute), field("Only when it becomes", triggerInputs.becomes)),
            segment: h("div", {}, field("Segment", triggerInputs.segment),
              field("Also enter who is a member when it starts", triggerInputs.currentMembers)),
            schedule: h("div", {}, field("Every", triggerInputs.every), field("At (each person's local time)", triggerInputs.at),
              field("On (weekly)", triggerInputs.weekday), field("Audience expression", triggerInputs.audience)),
          };
          const syncTrigger = () => {
            for (const [kind, part] of Object.entries(triggerParts)) part.hidden = triggerKind.value !== kind;
          };
          triggerKind.addEventListener("change", syncTrigger);
          syncTrigger();

          const entryRule = h("select", { name: "entry_rule" }, [["every_time", "Every time"], ["once", "Once ever"],
            ["once_every", "At most once every N days"]].map(([value, label]) =>
            h("option", { value, selected: (start.entry?.rule ?? "every_time") === value }, label)));
          const entryDays = h("input", { name: "entry_days", type: "number", min: "1", max: "365", value: start.entry?.days ?? 7 });
          const syncEntry = () => { entryDays.disabled = entryRule.value !== "once_every"; };
          entryRule.addEventListener("change", syncEntry);
          const exitEvents = h("input", { name: "exit_events", value: (start.exit ?? []).map((condition) => condition.event).join(", "),
            placeholder: "purchase" });

          const general = h("ul", { id: "journey-errors", class: "error", role: "alert" });
          const list = h("ol", { id: "journey-steps-builder", class: "steps" });
          const result = h("p", { id: "journey-result", "aria-live": "polite" });

          function definition() {
            const kind = triggerKind.value;
            const built = { name: name.value.trim(), entry: { rule: entryRule.value }, steps: steps.map(stepDefinition) };
            if (entryRule.value === "once_every") built.entry.days = Number(entryDays.value);
            // What the builder has no control for (a zone, attributes a trigger or an exit is narrowed by) is kept.
            if (start.fallback_time_zone) built.fallback_time_zone = start.fallback_time_zone;
            if (kind === "event") {
              built.trigger = { event: triggerInputs.event.value.trim() };
              const attributes = trigger.event === built.trigger.event ? trigger.where?.attributes : undefined;
              const value = triggerInputs.whereValue.value.trim();
              if (value || attributes) built.trigger.where = { value: value || undefined, attributes };
            } else if (kind === "attribute") {
              built.trigger = { attribute: triggerInputs.attribute.value.trim() };
              if (triggerInputs.becomes.value.trim()) built.trigger.becomes = triggerInputs.becomes.value.trim();
            } else if (kind === "segment") {
              built.trigger = { segment: triggerInputs.segment.value.trim() };
              if (triggerInputs.currentMembers.checked) built.trigger.include_current_members = true;
            } else {
              built.trigger = { schedule: { every: triggerInputs.every.value, at: triggerInputs.at.value } };
              if (triggerInputs.every.value === "week") built.trigger.schedule.weekday = triggerInputs.weekday.value;
              if (triggerInputs.audience.value.trim()) built.trigger.schedule.audience = triggerInputs.audience.value.trim();
            }
            built.exit = exitEvents.value.split(/[\s,]+/).filter(Boolean).map((event) =>
              (start.exit ?? []).find((condition) => condition.event === event) ?? { event });
            return JSON.parse(JSON.stringify(built));
          }

          // A select of the steps one may go to, with "" meaning the step after this one (the run ends after the last).
          function targetSelect(label, value, onchange, { name: selectName, control = false } = {}) {
            const select = h("select", { name: selectName },
              h("option", { value: "", selected: value === "" }, control ? "(choose a step)" : "the next step"),
              steps.filter((step) => step.id.trim()).map((step) => h("option", { value: step.id, selected: step.id === value }, step.id)));
            select.addEventListener("change", () => onchange(select.value));
            return field(label, select);
          }

          function input(model, key, attributes = {}, tag = "input") {
            const element = h(tag, attributes);
            element.value = model[key] ?? "";
            element.addEventListener("input", () => { model[key] = element.value; });
            return element;
          }

          function stepFields(model, index) {
            const prefix = `step_${index}`;
            const next = () => targetSelect("Then go to", model.next, (value) => { model.next = value; }, { name: `${prefix}_next` });
            switch (model.type) {
              case "send":
                return [field("Title", input(model, "title", { name: `${prefix}_title`, maxlength: "200" })),
                  field("Body", input(model, "body", { name: `${prefix}_body`, maxlength: "2000" }, "textarea")), next()];
              case "wait": {
                const mode = h("select", { name: `${prefix}_wait` }, [["duration", "For a time"], ["until_local_time", "Until a local time"],
                  ["for_event", "For an event, with a timeout"]].map(([value, label]) => h("option", { value, selected: model.wait === value }, label)));
                mode.addEventListener("change", () => { model.wait = mode.value; render(); });
                const unit = h("select", { name: `${prefix}_unit` }, units.map(([value]) => h("option", { value, selected: model.unit === value }, value)));
                unit.addEventListener("change", () => { model.unit = unit.value; });
                const parts = {
                  duration: [h("div", { class: "row" }, cell("Wait", input(model, "amount", { name: `${prefix}_amount`, type: "number", min: "0" })),
                    cell("Unit", unit)), next()],
                  until_local_time: [field("Until (the person's local time)", input(model, "until", { name: `${prefix}_until`, type: "time" })), next()],
                  for_event: [field("Event type", input(model, "forEvent", { name: `${prefix}_for_event`, placeholder: "purchase" })),
                    field("Timeout (seconds)", input(model, "timeout", { name: `${prefix}_timeout`, type: "number", min: "1" })),
                    targetSelect("When the event comes, go to", model.onEvent, (value) => { model.onEvent = value; }, { name: `${prefix}_on_event` }),
                    targetSelect("On timeout, go to", model.onTimeout, (value) => { model.onTimeout = value; }, { name: `${prefix}_on_timeout` })],
                };
                return [field("Wait", mode), parts[model.wait]];
              }
              case "branch": {
                const kind = h("select", { name: `${prefix}_branch` }, [["audience", "The person matches an audience"],
                  ["event", "The person did an event since entering"]].map(([value, label]) => h("option", { value, selected: model.branch === value }, label)));
                kind.addEventListener("change", () => { model.branch = kind.value; });
                return [field("If", kind), field("Audience expression or event type", input(model, "condition", { name: `${prefix}_condition` })),
                  targetSelect("Then go to", model.then, (value) => { model.then = value; }, { name: `${prefix}_then` }),
                  targetSelect("Else go to", model.else, (value) => { model.else = value; }, { name: `${prefix}_else` })];
              }
              case "split": {
                const paths = model.paths.map((path, pathIndex) => {
                  const control = h("input", { type: "checkbox", name: `${prefix}_path_${pathIndex}_control`, checked: path.control });
                  control.addEventListener("change", () => { path.control = control.checked; render(); });
                  return h("fieldset", {}, h("legend", {}, `Path ${pathIndex + 1}`),
                    field("Weight", input(path, "weight", { name: `${prefix}_path_${pathIndex}_weight`, type: "number", min: "1" })),
                    h("label", { class: "inline" }, control, "Control group: exits, gets nothing"),
                    path.control ? null : targetSelect("Goes to", path.next, (value) => { path.next = value; },
                      { name: `${prefix}_path_${pathIndex}_next`, control: true }),
                    model.paths.length > 2 ? h("button", { type: "button", onclick: () => { model.paths.splice(pathIndex, 1); render(); } }, "Remove path") : null);
                });
                return [paths, model.paths.length < 10 ? h("button", { type: "button", onclick: () => {
                  model.paths.push({ weight: 10, next: "", control: false });
                  render();
                } }, "Add a path") : null];
              }
              default:
                return [h("p", { class: "muted" }, "Ends the run here (exited: exit_step).")];
            }
          }

          function move(index, by) {
            const [step] = steps.splice(index, 1);
            steps.splice(index + by, 0, step);
            render();
          }

          // Each error goes beside the step its path names (`steps[2].wait` → the third step), the rest above them.
          function render() {
            const mine = (index) => errors.filter((error) => error.path === `steps[${index}]` || error.path?.startsWith(`steps[${index}].`) ||
              error.path?.startsWith(`steps[${index}][`));
            show(general, errors.filter((error) => !/^steps\[\d+\]/.test(error.path ?? ""))
              .map((error) => h("li", {}, h("code", {}, error.path || "journey"), ` ${error.message}`)));
            show(list, steps.map((model, index) => {
              const id = h("input", { name: `step_${index}_id`, value: model.id, maxlength: "64", required: true });
              id.addEventListener("input", () => { model.id = id.value; });
              id.addEventListener("change", render);
              const type = h("select", { name: `step_${index}_type` }, stepTypes.map((value) => h("option", { value, selected: model.type === value }, value)));
              type.addEventListener("change", () => { model.type = type.value; render(); });
              const problems = mine(index);
              return h("li", { class: problems.length ? "step invalid" : "step", "data-step": index },
                h("fieldset", { "aria-invalid": problems.length ? "true" : "false" },
                  h("legend", {}, `Step ${index + 1}`),
                  h("div", { class: "row" }, cell("Step id", id), cell("Kind", type)),
                  stepFields(model, index),
                  problems.length ? h("ul", { class: "step-errors error", role: "alert" },
                    problems.map((error) => h("li", {}, h("code", {}, error.path), ` ${error.message}`))) : null,
                  h("div", { class: "row" },
                    h("button", { type: "button", disabled: index === 0, onclick: () => move(index, -1) }, "Move up"),
                    h("button", { type: "button", disabled: index === steps.length - 1, onclick: () => move(index, 1) }, "Move down"),
                    h("button", { type: "button", class: "danger", disabled: steps.length === 1,
                      onclick: () => { steps.splice(index, 1); errors = []; render(); } }, "Remove step"))));
            }));
          }

          const newType = h("select", { name: "new_step_type", id: "new-step-type" }, stepTypes.map((value) => h("option", { value }, value)));
          function addStep() {
            const used = new Set(steps.map((step) => step.id));
            let number = steps.length + 1;
            while (used.has(`${newType.value}_${number}`)) number += 1;
            steps.push(stepFrom({ id: `${newType.value}_${number}`, type: newType.value }));
            render();
            list.lastElementChild?.querySelector("input")?.focus();
          }

          async function validate() {
            const answer = await api("POST", "/v1/journeys:validate", definition());
            errors = answer.valid ? [] : answer.errors ?? [];
            render();
            result.className = answer.valid ? "ok" : "error";
            result.textContent = answer.valid ? "✓ Valid: ready to save." : `✗ ${errors.length} problem(s): each is shown beside its step.`;
            return answer.valid;
          }

          const run = (work) => async () => {
            try {
              await work();
            } catch (error) {
              result.className = "error";
              result.textContent = error.message;
            }
          };

          const form = h("form", { id: "journey-form" },
            h("fieldset", {}, h("legend", {}, "Journey"), field("Name", name)),
            h("fieldset", {}, h("legend", {}, "Who enters, and when"), field("Trigger", triggerKind), Object.values(triggerParts),
              field("Entry rule", entryRule), field("Days (for at most once every N days)", entryDays)),
            h("fieldset", {}, h("legend", {}, "Exit"),
              field("Leave at once on any of these events (comma-separated)", exitEvents)),
            general,
            h("h2", {}, "Steps"),
            h("p", { class: "muted" }, "Each person walks the steps in order unless a step says where to go; after the last one the run completes."),
            list,
            h("div", { class: "row" }, cell("New step's kind", newType),
              h("button", { type: "button", id: "add-step", onclick: addStep }, "Add a step")),
            h("div", { class: "row" },
              h("button", { type: "button", id: "journey-validate", onclick: run(validate) }, "Validate"),
              h("button", { type: "submit", class: "primary", id: "journey-save" }, journeyID ? "Save a new version" : "Save as draft")),
            result);
          form.addEventListener("submit", (event) => {
            event.preventDefault();
            run(async () => {
              if (!(await validate())) return;
              const saved = journeyID ?
                await api("PUT", `/v1/journeys/${encodeURIComponent(journeyID)}`, definition()) :
                await api("POST", "/v1/journeys", definition());
              location.hash = `#/journeys/${encodeURIComponent(saved.journey_id)}`;
            })();
          });
          render();
          show(view, h("p", {}, h("a", { href: journeyID ? `#/journeys/${encodeURIComponent(journeyID)}` : "#/journeys" }, "← Back")),
            h("h1", {}, journeyID ? `Edit journey ${journeyID}` : "New journey"), form);
          syncEntry();
          name.focus();
        }
        """#,
        "page-messages.js": #"""
        import { api, can } from "/console/api.js";
        import { setPageTimer } from "/console/app.js";
        import { h, percent, rate, show, table, time } from "/console/dom.js";

        export async function messagesPage(view) {
          const stateFilter = h("select", { id: "message-state" },
            ["", "scheduled", "resolving", "sending", "done", "cancelled"].map((state) => h("option", { value: state }, state || "any")));
          const list = h("div", { "aria-live": "polite" });
          let cursor = null;
          const shown = [];

          function render() {
            const rows = shown.filter((message) => !stateFilter.value || message.state === stateFilter.value);
            show(list, table(["Created", "Message", "State", "Sends at", "Targets", "Sent", "Failed", "Skipped", "Cancelled"], rows.map((message) => [
              time(message.created_at),
              h("a", { href: `#/messages/${encodeURIComponent(message.message_id)}` },
                typeof message.title === "string" ? message.title : message.message_id),
              message.state, message.state === "scheduled" ? time(message.resolve_at) : "", message.counts.targets, message.counts.sent, message.counts.failed, message.counts.skipped,
              message.counts.cancelled ?? 0,
            ])), cursor ? h("button", { type: "button", onclick: more }, "Older messages") : null);
          }

          async function more() {
            const page = await api("GET", `/v1/stats/messages?limit=25${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`);
            shown.push(...page.messages);
            cursor = page.next_cursor;
            render();
          }

          stateFilter.addEventListener("change", render);
          show(view, h("h1", {}, "Messages"),
            h("label", { for: "message-state" }, "State"), stateFilter,
            can("editor") ? h("p", {}, h("a", { href: "#/compose" }, "Compose a new message")) : null, list);
          await more();
        }

        export async function messagePage(view, messageID) {
          const status = h("p", { class: "muted", "aria-live": "polite" });
          const body = h("div");

          async function refresh() {
            const message = await api("GET", `/v1/messages/${encodeURIComponent(messageID)}`);
            const counts = message.counts;
            const funnel = message.funnel;
            // Distinct installations per stage, so that two opens on one phone count once. Opened counts an opening
            // through the body or through a button that opens the app; actions count every button, opening the app or
            // not, so they are a share of delivered, not of opened (the server's rates, docs/campaigns.md).
            const stage = (name) => funnel?.unique?.[name] ?? 0;
            const delivered = stage("delivered");
            const stages = [
              ["Targets", counts.targets, "", ""],
              ["Sent", counts.sent, percent(counts.sent, counts.targets), "of targets"],
              ...(counts.cancelled ? [["Cancelled", counts.cancelled, percent(counts.cancelled, counts.targets), "of targets"]] : []),
              ["Delivered", delivered, percent(delivered, counts.sent), "of sent"],
              ["Opened", stage("opened"), rate(funnel?.rates?.open_rate), "of delivered"],
              ["Actions", stage("actions"), rate(funnel?.rates?.action_rate), "of delivered"],
            ];
            const peak = Math.max(1, counts.targets);
            const bars = stages.map(([name, value, share, of]) => {
              const bar = h("div", { class: "bar" });
              bar.style.width = `${(100 * value) / peak}%`;
              return [name, bar, String(value), share, of];
            });
            const reasons = (byReason) => Object.entries(byReason ?? {}).sort((a, b) => b[1] - a[1]);
            const failed = reasons(counts.failed_by_reason);
            const skipped = reasons(counts.skipped_by_reason);
            // Per variant (with the open-rate difference from the first and its 95% interval) and per language.
            const groupRows = (groups, key) => (groups ?? []).map((group) => {
              const unique = group.unique ?? {};
              const difference = group.open_rate_difference;
              return [group[key], group.targets, group.sent ?? 0, unique.delivered ?? 0, unique.opened ?? 0,
                rate(group.rates?.open_rate),
                ...(key === "variant" ? [difference ? `${(100 * difference.difference).toFixed(1)} pts ` +
                  `(${(100 * difference.ci95_low).toFixed(1)} to ${(100 * difference.ci95_high).toFixed(1)})` +
                  (difference.significant ? ", significant" : ", not significant") : ""] : [])];
            });
            // Conversions per variant, the control group included: the rate with its 95% Wilson interval, and the
            // difference from the control group (or the first variant) with its 95% interval.
            const points = (value) => `${value >= 0 ? "+" : ""}${(100 * value).toFixed(1)}`;
            const goal = funnel?.conversion;
            const span = (seconds) => [[86400, "d"], [3600, "h"], [60, "min"]].map(([length, unit]) =>
              seconds % length === 0 ? `${seconds / length} ${unit}` : null).find(Boolean) ?? `${seconds} s`;
            const conversionRows = (funnel?.variants ?? []).filter((group) => group.conversions).map((group) => {
              const counts = group.conversions;
              const difference = counts.difference;
              return [group.variant, counts.recipients, counts.converted, rate(counts.rate),
                counts.ci95_low === null ? "–" : `${rate(counts.ci95_low)} to ${rate(counts.ci95_high)}`,
                difference ? `${points(difference.difference)} pts versus ${difference.versus} ` +
                  `(${points(difference.ci95_low)} to ${points(difference.ci95_high)})` +
                  (difference.significant ? ", significant" : ", not significant") : ""];
            });
            const conversions = goal && conversionRows.length ? h("section", { id: "variant-conversions" },
              h("h2", {}, `Conversions: ${goal.event} within ${span(goal.within_seconds)} of ${goal.from}`),
              table(["Variant", "Recipients", "Converted", "Rate", "95% interval", "Difference (95% CI)"], conversionRows))
              : null;
            const breakdown = (groups, key, heading, id) => groups?.length ? h("section", { id },
              h("h2", {}, heading),
              table([key === "variant" ? "Variant" : "Language", "Targets", "Sent", "Delivered", "Opened", "Open rate",
                ...(key === "variant" ? ["Versus the first (95% CI)"] : [])], groupRows(groups, key))) : null;
            show(body,
              h("section", { class: "funnel", "aria-labelledby": "funnel-heading" },
                h("h2", { id: "funnel-heading" }, "Funnel"),
                table(["Stage", "", "Count", "Rate", "Of"], bars)),
              breakdown(funnel?.variants, "variant", "By variant", "variant-funnels"),
              conversions,
              breakdown(funnel?.languages, "language", "By language", "language-funnels"),
              h("h2", {}, "Failures by reason"),
              failed.length ? table(["Reason", "Count"], failed) : h("p", { class: "muted" }, "None."),
              h("h2", {}, "Skipped by reason"),
              skipped.length ? table(["Reason", "Count"], skipped) : h("p", { class: "muted" }, "None."),
              localSchedule(message.local_schedule), winner(message));
            const schedule = message.state === "scheduled" && message.resolve_at ?
              ` · sends from ${time(message.resolve_at)}` : "";
            status.textContent = `State: ${message.state} · created ${time(message.created_at)}${schedule}` +
              (message.state === "done" ? ` · finished ${time(message.finished_at)}` : " · updating every 2 s");
            status.dataset.state = message.state;
            cancel.hidden = !can("editor") || message.state === "done" || message.state === "cancelled";
            return message;
          }

          const cancel = h("button", { type: "button", class: "danger", hidden: true, onclick: async () => {
            if (!confirm("Cancel what is not sent yet?")) return;
            try {
              await api("DELETE", `/v1/messages/${encodeURIComponent(messageID)}`);
              await refresh();
            } catch (error) {
              status.textContent = error.message;
            }
          } }, "Cancel sending");
          const duplicate = can("editor") ? h("a", { href: `#/compose?from=${encodeURIComponent(messageID)}` },
            "Duplicate as new") : null;
          show(view, h("p", {}, h("a", { href: "#/messages" }, "← Messages")), h("h1", {}, `Message ${messageID}`),
            status, h("div", { class: "row" }, cancel, duplicate), body);
          await refresh();
          // Counts move while the fan-out sends and devices report back: poll until the page is left.
          setPageTimer(setInterval(() => refresh().catch(() => {}), 2000));
        }

        // A local-time message's due times: each installation's delivery is due at the local time in its own zone, so
        // the send goes out zone by zone over about a day; each row is one due instant and its UTC offset.
        function localSchedule(schedule) {
          if (!schedule) return null;
          const next = schedule.next_due_at ? `Next due ${time(schedule.next_due_at)}` : "Nothing waiting";
          return h("section", { id: "local-schedule" },
            h("h2", {}, `Local time ${schedule.local_time}`),
            h("p", { class: "muted" }, `${next} · ${schedule.waiting} waiting`),
            schedule.zones.length ? table(["Due", "UTC offset", "Waiting", "Sent", "Failed", "Skipped"],
              schedule.zones.map((zone) => [time(zone.due_at), zone.utc_offset ?? "–", zone.waiting + zone.in_flight,
                zone.sent, zone.failed, zone.skipped])) : h("p", { class: "muted" }, "Not resolved yet."));
        }

        // A split test that picks its winner: where its decision stands and, once decided, the numbers it was made on
        // (each variant's rate with its interval at the test's confidence) and the follow-up sending the winner; a
        // follow-up links back to its test.
        function winner(message) {
          const link = (id) => h("a", { href: `#/messages/${encodeURIComponent(id)}` }, id);
          if (message.follow_up_of) {
            return h("section", { id: "winner" }, h("h2", {}, "Winner of a split test"),
              h("p", {}, "Sent to the rest of the audience of ", link(message.follow_up_of), "."));
          }
          const test = message.winner;
          if (!test) return null;
          const share = `${Math.round(1000 * test.test_share) / 10}%`;
          const confidence = `${Math.round(1000 * test.confidence) / 10}%`;
          const rule = `Tested on ${share} of the audience; decided ${test.decide_at ? time(test.decide_at) :
            "after the test's sends are resolved"} at ${confidence} confidence; if inconclusive: ${test.if_inconclusive}.`;
          const decided = test.state === "decided" ? [
            h("p", {}, `Winner: ${test.variant} (${test.significant ? "significant" : "inconclusive, best was " + test.best}) · ` +
              `decided ${time(test.decided_at)} · follow-up `, link(test.follow_up_message_id)),
            table(["Variant", "Recipients", "Converted", "Rate", `${confidence} interval`], (test.variants ?? []).map((arm) =>
              [arm.variant, arm.recipients, arm.converted, rate(arm.rate),
                arm.low === null ? "–" : `${rate(arm.low)} to ${rate(arm.high)}`])),
          ] : [h("p", {}, test.state === "cancelled" ? "Cancelled before the decision: no winner is sent." : "Testing.")];
          return h("section", { id: "winner" }, h("h2", {}, "Split test that picks its winner"),
            h("p", { class: "muted" }, rule), ...decided);
        }
        """#,
        "page-overview.js": #"""
        import { api } from "/console/api.js";
        import { lineChart } from "/console/charts.js";
        import { h, percent, rate, show, table } from "/console/dom.js";

        export async function overviewPage(view) {
          const data = await api("GET", "/v1/stats/overview?days=14");
          const installs = data.installations;
          const days = data.days.map((entry) => entry.day);
          const card = (label, value, note) =>
            h("div", { class: "card" }, h("div", { class: "muted" }, label), h("div", { class: "value" }, value),
              note ? h("div", { class: "muted" }, note) : null);
          // The server defines the rate (opens of the messages delivered in the window over those deliveries), so the
          // console, the CLI and the API show the same figure.
          const { sent, delivered, opened, open_rate: openRate } = data.totals;
          const failures = Object.entries(data.failures_by_reason).sort((a, b) => b[1] - a[1]);
          show(view,
            h("h1", {}, "Overview"),
            h("div", { class: "cards" },
              card("Installations", installs.total, `${installs.with_token} with a push token`),
              card("Notification consent", percent(installs.notification_consent, installs.total),
                `${installs.notification_consent} installations`),
              card("Sent, 14 days", sent, `${delivered} delivered`),
              card("Open rate, 14 days", rate(openRate),
                `${opened} of ${delivered} deliveries opened`)),
            h("h2", {}, "Installations by platform"),
            table(["Platform", "Installations", "Share"],
              Object.entries(installs.by_platform).map(([name, count]) => [name, count, percent(count, installs.total)])),
            h("h2", {}, "Notification permission"),
            table(["Permission", "Installations", "Share"],
              Object.entries(installs.by_permission).map(([name, count]) => [name, count, percent(count, installs.total)])),
            h("h2", {}, "Sending"),
            lineChart({
              title: "Messages sent and delivered per day", days,
              series: [
                { name: "Sent", values: data.days.map((entry) => entry.sent) },
                { name: "Delivered", values: data.days.map((entry) => entry.delivered) },
                { name: "Failed", values: data.days.map((entry) => entry.failed) },
              ],
            }),
            lineChart({
              title: "Open rate per day (%)", days, maximum: 100, format: (value) => `${value}`,
              series: [{
                name: "Opened / delivered",
                values: data.days.map((entry) => (entry.open_rate === null ? 0 : Math.round(entry.open_rate * 1000) / 10)),
              }],
            }),
            h("h2", {}, "Recent failures by reason"),
            failures.length ? table(["Reason", "Failures"], failures) : h("p", { class: "muted" }, "No failures in 14 days."));
        }
        """#,
        "page-settings.js": #"""
        import { api, can, session } from "/console/api.js";
        import { field, h, show, table, time } from "/console/dom.js";

        const admin = (path) => `/v1/admin/apps/${encodeURIComponent(session.app)}${path}`;

        function notice(element, text, isError = false) {
          element.className = isError ? "error" : "ok";
          element.textContent = text;
        }

        async function appsSection() {
          const apps = (await api("GET", "/v1/admin/apps")).apps;
          const name = h("input", { name: "app_name", required: true });
          const bundle = h("input", { name: "bundle_id", required: true, placeholder: "com.example.app" });
          const status = h("p", { role: "status" });
          const form = h("form", {}, field("New app name", name), field("Bundle id", bundle),
            h("button", { type: "submit" }, "Create app"), status);
          form.addEventListener("submit", async (event) => {
            event.preventDefault();
            try {
              const app = await api("POST", "/v1/admin/apps", { name: name.value.trim(), bundle_id: bundle.value.trim() });
              notice(status, `Created ${app.app_id}. Reload to pick it.`);
            } catch (error) {
              notice(status, error.message, true);
            }
          });
          return h("section", {}, h("h2", {}, "Apps"),
            table(["App", "Name", "Bundle id", "APNs", "FCM"], apps.map((app) => [
              app.app_id, app.name, app.bundle_id, app.apns.configured ? `key ${app.apns.key_id}` : "not set",
              app.fcm.configured ? app.fcm.project_id : "not set",
            ])), form);
        }

        async function keysSection(refresh) {
          const keys = (await api("GET", admin("/keys"))).keys;
          const status = h("div", { role: "status" });
          const kind = h("select", {}, h("option", { value: "server" }, "server"), h("option", { value: "app" }, "app"));
          const create = h("button", { type: "button", onclick: async () => {
            try {
              const issued = await api("POST", admin("/keys"), { kind: kind.value });
              // The secret exists only in this answer: shown once, never stored by the console.
              show(status, h("p", {}, `New ${issued.key.kind} key ${issued.key.key_id}. Copy it now; it is not shown again:`),
                h("p", { class: "secret", id: "new-key-secret" }, issued.secret));
            } catch (error) {
              notice(status, error.message, true);
            }
          } }, "Create key");
          const rows = keys.map((key) => [key.key_id, key.kind, key.hint, time(key.created_at),
            key.revoked_at ? `revoked ${time(key.revoked_at)}` :
              h("button", { type: "button", class: "danger", onclick: async () => {
                if (!confirm(`Revoke ${key.key_id}? Clients using it stop working.`)) return;
                await api("DELETE", `/v1/admin/keys/${encodeURIComponent(key.key_id)}`);
                refresh();
              } }, "Revoke")]);
          return h("section", {}, h("h2", {}, "API keys"), table(["Key", "Kind", "Hint", "Created", ""], rows),
            h("div", { class: "row" }, h("div", {}, field("Kind", kind)), create), status);
        }

        function credentialsSection() {
          const status = h("p", { role: "status" });
          const apnsKey = h("input", { type: "file", accept: ".p8" });
          const keyID = h("input", { name: "apns_key_id" });
          const teamID = h("input", { name: "apns_team_id" });
          const fcmFile = h("input", { type: "file", accept: ".json,application/json" });
          const read = (input) => (input.files[0] ? input.files[0].text() : Promise.reject(new Error("choose a file")));
          const apnsForm = h("form", {}, h("h3", {}, "APNs"), field("Key file (.p8)", apnsKey), field("Key id", keyID),
            field("Team id", teamID), h("button", { type: "submit" }, "Upload APNs key"));
          apnsForm.addEventListener("submit", async (event) => {
            event.preventDefault();
            try {
              await api("PUT", admin("/apns"), { key: await read(apnsKey), key_id: keyID.value.trim(), team_id: teamID.value.trim() });
              apnsForm.reset();
              notice(status, "APNs key stored. It is never shown back.");
            } catch (error) {
              notice(status, error.message, true);
            }
          });
          const fcmForm = h("form", {}, h("h3", {}, "FCM"), field("Service account (.json)", fcmFile),
            h("button", { type: "submit" }, "Upload service account"));
          fcmForm.addEventListener("submit", async (event) => {
            event.preventDefault();
            try {
              await api("PUT", admin("/fcm"), { service_account: JSON.parse(await read(fcmFile)) });
              fcmForm.reset();
              notice(status, "Service account stored. It is never shown back.");
            } catch (error) {
              notice(status, error.message, true);
            }
          });
          return h("section", {}, h("h2", {}, "Push credentials"), apnsForm, fcmForm, status);
        }

        async function identitySection(refresh) {
          const keys = (await api("GET", admin("/identity-keys"))).identity_keys;
          const keyID = h("input", { name: "identity_key_id" });
          const pem = h("textarea", { name: "identity_public_key", placeholder: "-----BEGIN PUBLIC KEY-----" });
          const status = h("p", { role: "status" });
          const form = h("form", {}, field("Key id", keyID), field("Public key (PEM)", pem),
            h("button", { type: "submit" }, "Add identity key"), status);
          form.addEventListener("submit", async (event) => {
            event.preventDefault();
            try {
              await api("POST", admin("/identity-keys"), { key_id: keyID.value.trim(), public_key: pem.value.trim() });
              refresh();
            } catch (error) {
              notice(status, error.message, true);
            }
          });
          return h("section", {}, h("h2", {}, "Identity-verification keys"),
            table(["Key id", "Algorithm", "Added", ""], keys.map((key) => [key.key_id, key.algorithm, time(key.created_at),
              h("button", { type: "button", class: "danger", onclick: async () => {
                await api("DELETE", admin(`/identity-keys/${encodeURIComponent(key.key_id)}`));
                refresh();
              } }, "Remove")])), form);
        }

        async function operatorsSection(refresh) {
          const operators = (await api("GET", "/v1/admin/operators", undefined, { app: false })).operators;
          const status = h("div", { role: "status", id: "operator-status" });
          const roles = ["viewer", "editor", "admin"];
          // A password the server generated exists only in its answer: shown once, never kept by the console.
          // Looked up when shown: adding an operator renders the page anew.
          const showPassword = (name, password) => show(document.getElementById("operator-status") ?? status,
            h("p", {}, `Password for ${name}. Give it to them now; it is not shown again:`),
            h("p", { class: "secret", id: "new-operator-password" }, password));
          const failed = (error) => notice(status, error.message, true);
          const rows = operators.map((account) => {
            const role = h("select", { "aria-label": `Role of ${account.name}` },
              roles.map((name) => h("option", { value: name, selected: name === account.role }, name)));
            role.addEventListener("change", async () => {
              try {
                await api("PATCH", `/v1/admin/operators/${encodeURIComponent(account.name)}`, { role: role.value },
                  { app: false });
                notice(status, `${account.name} is now ${role.value}; their sessions ended.`);
              } catch (error) {
                role.value = account.role;
                failed(error);
              }
            });
            const self = account.name === session.operator.name;
            return [account.name, role, account.two_factor ? "on" : "off", time(account.created_at), h("div", { class: "row" },
              h("button", { type: "button", onclick: async () => {
                if (!confirm(`Give ${account.name} a new password? Their sessions end.`)) return;
                try {
                  const reset = await api("POST", `/v1/admin/operators/${encodeURIComponent(account.name)}/password`,
                    undefined, { app: false });
                  showPassword(account.name, reset.password);
                } catch (error) {
                  failed(error);
                }
              } }, "New password"),
              account.two_factor && !self ? h("button", { type: "button", onclick: async () => {
                if (!confirm(`Reset ${account.name}'s two-factor sign-in? They sign in with their password alone until they set it up again.`)) return;
                try {
                  await api("DELETE", `/v1/admin/operators/${encodeURIComponent(account.name)}/two-factor`, undefined,
                    { app: false });
                  refresh();
                } catch (error) {
                  failed(error);
                }
              } }, "Reset 2FA") : null,
              self ? null : h("button", { type: "button", class: "danger", onclick: async () => {
                if (!confirm(`Remove ${account.name}?`)) return;
                try {
                  await api("DELETE", `/v1/admin/operators/${encodeURIComponent(account.name)}`, undefined, { app: false });
                  refresh();
                } catch (error) {
                  failed(error);
                }
              } }, "Remove"))];
          });
          const name = h("input", { name: "operator_name", required: true, maxlength: "64" });
          const role = h("select", { name: "operator_role" }, roles.map((value) => h("option", { value }, value)));
          const form = h("form", { id: "operator-form" }, field("New operator's name", name), field("Role", role),
            h("button", { type: "submit" }, "Add operator"));
          form.addEventListener("submit", async (event) => {
            event.preventDefault();
            try {
              const created = await api("POST", "/v1/admin/operators", { name: name.value.trim(), role: role.value },
                { app: false });
              await refresh();
              showPassword(created.name, created.password);
            } catch (error) {
              failed(error);
            }
          });
          return h("section", { id: "operators" }, h("h2", {}, "Operators"),
            table(["Name", "Role", "2FA", "Added", ""], rows), form, status,
            h("p", { class: "muted" }, "The same on the server's host: ", h("code", {}, "tidingsd users create|list|set-role|reset-password|reset-2fa|remove"), "."));
        }

        async function auditSection() {
          const log = await api("GET", "/v1/audit?limit=50", undefined, { app: false });
          return h("section", {}, h("h2", {}, "Audit log"),
            table(["When", "Who", "Action", "Target", "App", "Status", "Address"], log.entries.map((entry) => [
              time(entry.at), entry.operator ?? `${entry.credential.replace("_", " ")} ${entry.key_id}`, entry.action,
              h("code", {}, entry.target), entry.app_id ?? "", entry.status, entry.address ?? "",
            ]), "Every change, by operators and by server and admin keys, newest first"));
        }

        // Recovery codes exist only in the answer that made them: shown once, with a copy button, never kept.
        function recoveryCodes(codes, done) {
          const status = h("p", { role: "status" });
          return [
            h("p", {}, "Recovery codes: each signs you in once if you lose your authenticator. Save them now; they are not shown again."),
            h("ul", { class: "secret", id: "recovery-codes" }, codes.map((code) => h("li", {}, h("code", {}, code)))),
            h("div", { class: "row" },
              h("button", { type: "button", id: "copy-recovery-codes", onclick: async () => {
                try {
                  await navigator.clipboard.writeText(codes.join("\n"));
                  notice(status, "Copied.");
                } catch {
                  notice(status, "Copying is not allowed here: select the codes and copy them.", true);
                }
              } }, "Copy codes"),
              h("button", { type: "button", id: "recovery-codes-saved", onclick: done }, "I have saved them")),
            status,
          ];
        }

        async function twoFactorSection(refresh) {
          const state = await api("GET", "/v1/session/two-factor", undefined, { app: false });
          const body = h("div", {});
          const status = h("p", { role: "status", id: "two-factor-status" });
          const failed = (error) => notice(status, error.message, true);
          const required = state.required
            ? h("p", { class: "error" }, "This server requires two-factor sign-in of admins: set it up to use the console.")
            : state.required_for_admins ? h("p", { class: "muted" }, "This server requires two-factor sign-in of admins.") : null;
          if (state.enabled) {
            const password = h("input", { type: "password", name: "two_factor_password", autocomplete: "current-password" });
            const code = h("input", { name: "two_factor_code", autocomplete: "one-time-code", maxlength: "64" });
            const credentials = () => ({ password: password.value, code: code.value.trim() });
            const regenerate = h("button", { type: "button", id: "new-recovery-codes", onclick: async () => {
              try {
                const answer = await api("POST", "/v1/session/two-factor/recovery-codes", credentials(), { app: false });
                show(body, recoveryCodes(answer.recovery_codes, refresh));
              } catch (error) {
                failed(error);
              }
            } }, "New recovery codes");
            const disable = state.required ? null : h("button", { type: "button", class: "danger", id: "disable-two-factor",
              onclick: async () => {
                if (!confirm("Turn two-factor sign-in off?")) return;
                try {
                  await api("POST", "/v1/session/two-factor/disable", credentials(), { app: false });
                  refresh();
                } catch (error) {
                  failed(error);
                }
              } }, "Turn off");
            show(body, h("p", { id: "two-factor-state" }, `On. ${state.recovery_codes_left} recovery codes left.`),
              h("p", { class: "muted" }, "Changing it needs your password and a current code (or a recovery code)."),
              field("Password", password), field("Code", code), h("div", { class: "row" }, regenerate, disable));
          } else {
            const start = h("button", { type: "button", id: "start-two-factor", onclick: async () => {
              try {
                const enrolment = await api("POST", "/v1/session/two-factor/enrolment", undefined, { app: false });
                const code = h("input", { name: "two_factor_confirm_code", autocomplete: "one-time-code", inputmode: "numeric",
                  maxlength: "6", required: true });
                const form = h("form", { id: "two-factor-confirm-form" }, field("Code from the app", code),
                  h("button", { type: "submit" }, "Turn on"));
                form.addEventListener("submit", async (event) => {
                  event.preventDefault();
                  try {
                    const answer = await api("POST", "/v1/session/two-factor/confirmation", { code: code.value.trim() },
                      { app: false });
                    // Enrolled: the console is no longer limited to Settings.
                    session.enrolmentRequired = false;
                    document.getElementById("nav").hidden = false;
                    show(body, recoveryCodes(answer.recovery_codes, refresh));
                  } catch (error) {
                    failed(error);
                  }
                });
                // The server's SVG is shown as a picture: an <img> runs no script in it.
                show(body, h("p", {}, "Scan this code with your authenticator app, then type the code it shows."),
                  h("img", { class: "qr", id: "two-factor-qr", alt: "QR code of the two-factor secret",
                    src: `data:image/svg+xml;charset=utf-8,${encodeURIComponent(enrolment.qr_svg)}` }),
                  h("p", {}, "Or enter this secret by hand: ", h("code", { class: "secret", id: "two-factor-secret" },
                    enrolment.secret)),
                  form);
                code.focus();
              } catch (error) {
                failed(error);
              }
            } }, "Set up two-factor sign-in");
            show(body, h("p", { id: "two-factor-state" }, "Off: signing in needs only your password."), start);
          }
          return h("section", { id: "two-factor" }, h("h2", {}, "Two-factor sign-in"), required, body, status);
        }

        export async function settingsPage(view) {
          const refresh = () => settingsPage(view);
          if (session.enrolmentRequired) {
            show(view, h("h1", {}, "Settings"), await twoFactorSection(refresh));
            return;
          }
          if (!can("admin")) {
            show(view, h("h1", {}, "Settings"), await twoFactorSection(refresh),
              h("p", {}, "Apps, keys, credentials and operators are managed by admin operators."),
              h("p", { class: "muted" }, `You are signed in as ${session.operator.name} (${session.operator.role}).`));
            return;
          }
          const sections = [await twoFactorSection(refresh), await appsSection()];
          if (session.app) {
            sections.push(await keysSection(refresh), credentialsSection(), await identitySection(refresh));
          }
          sections.push(await operatorsSection(refresh));
          sections.push(await auditSection());
          show(view, h("h1", {}, "Settings"), sections);
        }
        """#,
    ]
}
