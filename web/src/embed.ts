function escapeAttribute(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

/** The HTML a site pastes to embed a booking page inline (the script sizes the frame to its content). */
export function embedSnippet(bookingUrl: string, siteOrigin: string): string {
  return `<div data-scheduling-embed="${escapeAttribute(bookingUrl)}"></div>\n<script async src="${escapeAttribute(siteOrigin)}/embed.js"></script>`;
}
