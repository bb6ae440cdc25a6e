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
