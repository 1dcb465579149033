import { sha256 } from '@oslojs/crypto/sha2';
import { encodeBase64 } from '@oslojs/encoding';
import type { FastifyReply } from 'fastify';

/** The first-party pages' only stylesheet, inline; the CSP allows exactly this text by its hash. */
const PAGE_CSS = `:root{color-scheme:light dark;--fg:#1f2937;--muted:#4b5563;--bg:#f3f4f6;--card:#fff;--accent:#1d4ed8;--accent-fg:#fff;--border:#9ca3af;--warn-bg:#fef3c7;--warn-fg:#713f12;--error-bg:#fee2e2;--error-fg:#7f1d1d}
@media (prefers-color-scheme:dark){:root{--fg:#f3f4f6;--muted:#d1d5db;--bg:#111827;--card:#1f2937;--accent:#93c5fd;--accent-fg:#111827;--border:#6b7280;--warn-bg:#422006;--warn-fg:#fde68a;--error-bg:#450a0a;--error-fg:#fecaca}}
*{box-sizing:border-box}
body{margin:0;font:16px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:var(--fg);background:var(--bg)}
main{max-width:30rem;margin:3rem auto;padding:2rem;background:var(--card);border:1px solid var(--border);border-radius:.75rem}
@media (max-width:32rem){main{margin:0;border-radius:0;border-width:0 0 1px}}
h1{font-size:1.375rem;line-height:1.3;margin:0 0 1rem}
p{margin:.75rem 0}
.muted{color:var(--muted);font-size:.9375rem}
label{display:block;font-weight:600;margin:1rem 0 .25rem}
input[type=email],input[type=password],input[type=text],select{width:100%;padding:.625rem .75rem;font:inherit;color:inherit;background:transparent;border:1px solid var(--border);border-radius:.5rem}
input:focus-visible,button:focus-visible{outline:3px solid var(--accent);outline-offset:2px}
button{font:inherit;font-weight:600;padding:.625rem 1.25rem;border-radius:.5rem;border:1px solid var(--border);background:transparent;color:inherit;cursor:pointer}
button.primary{background:var(--accent);border-color:var(--accent);color:var(--accent-fg)}
button.link{padding:0;border:0;font-weight:400;text-decoration:underline;color:inherit}
.actions{display:flex;gap:.75rem;justify-content:flex-end;flex-wrap:wrap;margin-top:1.5rem}
ul.scopes{padding-left:1.25rem;margin:.5rem 0}
ul.scopes li{margin:.25rem 0}
.badge{display:inline-block;font-size:.75rem;font-weight:700;text-transform:uppercase;letter-spacing:.04em;padding:.125rem .5rem;border-radius:999px;background:var(--warn-bg);color:var(--warn-fg);vertical-align:middle}
.notice{padding:.75rem 1rem;border-radius:.5rem;background:var(--warn-bg);color:var(--warn-fg)}
.error{padding:.75rem 1rem;border-radius:.5rem;background:var(--error-bg);color:var(--error-fg)}
.inline{display:inline}
strong,code{overflow-wrap:anywhere}
a{color:inherit}
nav.links{display:flex;flex-wrap:wrap;gap:.5rem 1rem;margin:1.25rem 0}
nav.links a{font-weight:600}
dl.addresses dt{font-weight:600;margin-top:.75rem}
dl.addresses dd{margin:0}`;

/** The site's icon, the web app's (served whether or not the web app is built: src/http/web-app.ts). */
export const FAVICON_PATH = '/app/favicon.svg';

const STYLE_SOURCE = `'sha256-${encodeBase64(sha256(new TextEncoder().encode(PAGE_CSS)))}'`;

export function escapeHtml(text: string): string {
  return text
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&#39;');
}

export function hiddenInput(name: string, value: string): string {
  return `<input type="hidden" name="${escapeHtml(name)}" value="${escapeHtml(value)}">`;
}

/** The CSP source that allows exactly this inline script. */
export function inlineScriptSource(script: string): string {
  return `'sha256-${encodeBase64(sha256(new TextEncoder().encode(script)))}'`;
}

/** A page; `script` is an optional inline script, which `sendHtml` must then be told about (`scripts`). */
export function renderPage(title: string, body: string, script?: string): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<link rel="icon" type="image/svg+xml" href="${FAVICON_PATH}">
<title>${escapeHtml(title)}</title>
<style>${PAGE_CSS}</style>
</head>
<body>
<main>
${body}
</main>${script ? `\n<script>${script}</script>` : ''}
</body>
</html>`;
}

/**
 * Sends a first-party page with the headers every such page needs: no framing (clickjacking, BCP 240
 * §4.16), no referrer leaking codes or state (§4.2.4), no caching, nothing but our own inline stylesheet and
 * the site's icon. `formTargets` are the extra origins a form on the page may end up at (the consent form's redirect).
 */
export function sendHtml(
  reply: FastifyReply,
  status: number,
  html: string,
  formTargets: string[] = [],
  scripts: string[] = [],
): FastifyReply {
  const formAction = ["'self'", ...formTargets].join(' ');
  const scriptSrc = scripts.length > 0 ? `; script-src ${scripts.map(inlineScriptSource).join(' ')}` : '';
  return reply
    .code(status)
    .header(
      'Content-Security-Policy',
      `default-src 'none'; style-src ${STYLE_SOURCE}; img-src 'self'; form-action ${formAction}; frame-ancestors 'none'; base-uri 'none'${scriptSrc}`,
    )
    .header('X-Frame-Options', 'DENY')
    .header('Referrer-Policy', 'no-referrer')
    .header('X-Content-Type-Options', 'nosniff')
    .header('Cache-Control', 'no-store')
    .header('Pragma', 'no-cache')
    .type('text/html; charset=utf-8')
    .send(html);
}

/** A page for a request that cannot go on and must not be redirected anywhere. */
export function renderErrorPage(title: string, message: string): string {
  return renderPage(
    title,
    `<h1>${escapeHtml(title)}</h1>
<p class="error" role="alert">${escapeHtml(message)}</p>
<p class="muted">You can close this window and return to the app.</p>`,
  );
}
