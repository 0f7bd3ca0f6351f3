// Accounts in the page: register or sign in with a user name and password (the gateway's argon2id
// accounts), so that a player is the same on every device. The browser's device sign-in stays the
// default; this replaces it in this browser until sign-out.
import { useState } from "preact/hooks";
import { cardroom, saveSession } from "./api";
import { errorText } from "./nav";

export function Account() {
  const [user, setUser] = useState("");
  const [password, setPassword] = useState("");
  const [err, setErr] = useState("");
  const submit = (register: boolean) => async (e: Event) => {
    e.preventDefault();
    try {
      saveSession(await cardroom.signInPassword(user.trim(), password, { register }));
      localStorage.removeItem("cardroom.signedOut");
      location.reload(); // the page starts again as that player
    } catch (e) {
      setErr(errorText(e));
    }
  };
  return (
    <form class="account" onSubmit={submit(false)} aria-label="account">
      <h2>Your account</h2>
      <p>Play as the same person on every device: register a user name and password, or sign in with yours.</p>
      {err && (
        <p role="alert" class="error">
          {err}
        </p>
      )}
      <label>
        User name <input name="user" autocomplete="username" value={user} onInput={(e) => setUser(e.currentTarget.value)} required />
      </label>{" "}
      <label>
        Password{" "}
        <input name="password" type="password" autocomplete="current-password" value={password} onInput={(e) => setPassword(e.currentTarget.value)} required />
      </label>{" "}
      <button type="submit" data-testid="account-sign-in">
        Sign in
      </button>{" "}
      <button type="button" onClick={submit(true)} data-testid="account-register">
        Register
      </button>
    </form>
  );
}
