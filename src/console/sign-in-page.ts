import { type Html, html } from "./html.js";

/**
 * The sign-in form: an approver's token (the one the approvals API takes as a bearer token).
 *
 * @example
 * ```ts
 * signInPage({ problem: "That token matches no approver." }).toString();
 * ```
 */
export function signInPage({ problem }: { problem?: string } = {}): Html {
  return html`<h1>Sign in</h1>
<p>Sign in with your approver token (the token of <code>approvers.NAME</code> in docket.yaml).</p>
${problem ? html`<p class="problem" role="alert"><b>✘ Not signed in:</b> ${problem}</p>` : ""}
<form method="post" action="/console/sign-in" class="sign-in">
<label for="token">Approver token</label>
<input id="token" name="token" type="password" autocomplete="current-password" required maxlength="512" autofocus>
<button type="submit">Sign in</button>
</form>`;
}
