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
