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
