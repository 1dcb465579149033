/**
 * The inline embed: a host pastes this snippet into their own site; `/embed.js` (served by the service) finds the
 * `data-scheduling-embed` element, inserts an iframe of the booking page and resizes it when the page posts its
 * height. Pure so the dashboard can show it and tests can check it without a browser.
 */
export function embedSnippet(bookingUrl: string, siteOrigin: string): string {
  const scriptUrl = `${siteOrigin.replace(/\/+$/, '')}/embed.js`;
  return (
    `<div data-scheduling-embed="${escapeHtmlAttribute(bookingUrl)}"></div>\n` +
    `<script async src="${escapeHtmlAttribute(scriptUrl)}"></script>`
  );
}

/** The message the booking page posts to its parent when framed (checked by `/embed.js` with `event.origin`). */
export const EMBED_RESIZE_MESSAGE = 'scheduling:resize';

function escapeHtmlAttribute(value: string): string {
  return value
    .replaceAll('&', '&amp;')
    .replaceAll('"', '&quot;')
    .replaceAll("'", '&#39;')
    .replaceAll('<', '&lt;')
    .replaceAll('>', '&gt;');
}
