import { SCOPE_DESCRIPTIONS, type Scope } from '../identity/scopes.ts';
import type { Plan } from '../identity/user.entity.ts';
import { escapeHtml, hiddenInput, renderPage } from '../lib/html-page.ts';

export interface ConsentView {
  appName: string;
  /** Dynamically registered apps chose their own name: nobody vouches for it. */
  verified: boolean;
  /** Where the browser goes next (host and port of the redirect URI): RFC 7591 §5, MCP "display the redirect URI hostname". */
  redirectHost: string;
  scopes: readonly Scope[];
  user: { email: string; plan: Plan };
  /** The form's hidden fields: the authorization request as received, plus the session's CSRF token. */
  hiddenFields: Record<string, string>;
  /** The authorization request's own address, to come back to after switching accounts. */
  returnTo: string;
  signOutCsrf: string;
}

const PLAN_NAMES: Record<Plan, string> = { free: 'Free', pro: 'Pro', team: 'Team' };

/**
 * The consent screen: who asks, for what (in words), where the answer goes, and two buttons that POST the
 * same form back with decision=approve or decision=deny. Users off the Team plan only get "deny": tokens
 * they granted would not work on the API anyway.
 */
export function renderConsentPage(view: ConsentView): string {
  const canApprove = view.user.plan === 'team';
  const badge = view.verified ? '' : ' <span class="badge">Unverified</span>';
  const unverifiedNotice = view.verified
    ? ''
    : `<p class="notice">This app registered itself and has not been reviewed. Its name is chosen by whoever made it: only continue if you trust the app that sent you here.</p>`;
  const permissions = view.scopes.map((scope) => `<li>${escapeHtml(SCOPE_DESCRIPTIONS[scope])}</li>`).join('\n');
  const hidden = Object.entries(view.hiddenFields)
    .map(([name, value]) => hiddenInput(name, value))
    .join('\n');
  const planNotice = canApprove
    ? ''
    : `<p class="notice" role="alert">Apps connect through the Scheduling API, which is part of the Team plan. Your account is on the ${PLAN_NAMES[view.user.plan]} plan, so you cannot authorize this app until you upgrade to Team.</p>`;
  const buttons = canApprove
    ? `<button type="submit" name="decision" value="deny">Deny</button>
<button type="submit" name="decision" value="approve" class="primary">Allow access</button>`
    : `<button type="submit" name="decision" value="deny" class="primary">Back to the app</button>`;
  return renderPage(
    `Authorize ${view.appName}`,
    `<h1><strong><bdi>${escapeHtml(view.appName)}</bdi></strong>${badge} wants to access your scheduling account</h1>
${unverifiedNotice}
${planNotice}
<p>If you allow it, the app will be able to:</p>
<ul class="scopes">
${permissions}
</ul>
<p class="muted">After you choose, you will be sent to <strong>${escapeHtml(view.redirectHost)}</strong>. You can withdraw access at any time in your settings.</p>
<form method="post" action="/oauth/authorize" id="consent">
${hidden}
<div class="actions">
${buttons}
</div>
</form>
<form method="post" action="/logout" class="muted">
${hiddenInput('csrf', view.signOutCsrf)}
${hiddenInput('next', view.returnTo)}
Signed in as <strong>${escapeHtml(view.user.email)}</strong>. Not you? <button type="submit" class="link">Sign out</button>
</form>`,
  );
}
