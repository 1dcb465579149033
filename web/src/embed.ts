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

/** Whether this page was opened by `/embed.js` inside another site's iframe (`?embed=1`). */
export function isEmbedded(search: string = window.location.search): boolean {
  return new URLSearchParams(search).get('embed') === '1' && window.parent !== window;
}

/**
 * In embed mode, tells the framing page how tall the content is whenever it changes, so `/embed.js` can size
 * the iframe without a scrollbar. The message holds nothing but the height, so any parent may read it.
 */
export function postHeightToParent(): () => void {
  // The content's own height (the root element), not the document's: that is never less than the frame, so the
  // frame could grow but never shrink.
  const content = document.getElementById('root') ?? document.body;
  const post = () =>
    window.parent.postMessage({ type: EMBED_RESIZE_MESSAGE, height: Math.ceil(content.getBoundingClientRect().height) }, '*');
  const observer = new ResizeObserver(post);
  observer.observe(content);
  post();
  return () => observer.disconnect();
}
