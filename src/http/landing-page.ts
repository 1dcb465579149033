import type { FastifyInstance } from 'fastify';
import type { Env } from '../config/env.ts';
import { escapeHtml, renderPage, sendHtml } from '../lib/html-page.ts';

/** The addresses a person opens first; the start log names them too. */
export function addressesToOpen(siteUrl: string): { label: string; url: string }[] {
  return [
    { label: 'Dashboard', url: `${siteUrl}/app` },
    { label: 'API reference', url: `${siteUrl}/api/docs` },
    { label: 'MCP server (for AI assistants)', url: `${siteUrl}/mcp` },
  ];
}

function renderLanding(env: Env): string {
  const signup = env.SIGNUP_PLAN === 'off' ? '' : ' <a href="/signup">Create an account</a>';
  const site = escapeHtml(env.SITE_URL);
  return renderPage(
    'Scheduling',
    `<h1>Scheduling</h1>
<p>Let people book time with you: event types with their own booking pages, working hours and date overrides,
bookings that are never double-booked, leads and contacts. Everything is also an API.</p>
<nav class="links" aria-label="Get started"><a href="/login?next=%2Fapp">Sign in</a>${signup}<a href="/app">Dashboard</a></nav>
<dl class="addresses">
<dt><a href="/api/docs">API reference</a></dt>
<dd class="muted">REST at <code>${site}/api/v2</code>, described by an OpenAPI 3.1 document you can try out in the browser.
Create a personal access token in the dashboard's developer settings (Team plan) or register an OAuth app.</dd>
<dt>MCP server</dt>
<dd class="muted">AI assistants connect to <code>${site}/mcp</code> (Streamable HTTP): they sign in with OAuth or a personal
access token and get the API's operations as tools.</dd>
<dt>Booking pages</dt>
<dd class="muted">Each event type has a public page at <code>/book/&lt;your-slug&gt;/&lt;event-type&gt;</code>; copy its link or an
embed snippet from the dashboard.</dd>
</dl>`,
  );
}

/** GET /: what this service is and where to go, instead of a JSON 404. */
export function registerLandingPage(app: FastifyInstance, env: Env): void {
  const html = renderLanding(env);
  app.get('/', async (_request, reply) => sendHtml(reply, 200, html));
}
