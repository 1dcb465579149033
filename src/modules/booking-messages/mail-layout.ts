/**
 * The HTML and text parts of a message from a template's words. The HTML layout is MJML, compiled once per
 * process (with and without a button) into HTML with placeholders; each message fills them with its escaped
 * words, so MJML's cost is paid once, not per message (sending must keep up with hundreds a second). MJML itself
 * is loaded then too: it is about 18 MB of heap that an instance which never renders a mail does not carry.
 */
import type { MailContent } from './templates/template.ts';

const layoutSource = (withAction: boolean) => `<mjml>
  <mj-head>
    <mj-title>%%SUBJECT%%</mj-title>
    <mj-preview>%%PREVIEW%%</mj-preview>
    <mj-attributes>
      <mj-all font-family="-apple-system, 'Segoe UI', Roboto, Helvetica, Arial, sans-serif" />
      <mj-text font-size="15px" line-height="22px" color="#1f2937" />
    </mj-attributes>
  </mj-head>
  <mj-body background-color="#f3f4f6">
    <mj-section background-color="#ffffff" padding="24px">
      <mj-column>
        <mj-text font-size="20px" font-weight="600" line-height="28px">%%HEADING%%</mj-text>
        <mj-text>%%PARAGRAPHS%%</mj-text>
        <mj-table font-size="14px" line-height="20px" color="#1f2937" cellpadding="4px">%%DETAILS%%</mj-table>
        ${withAction ? '<mj-button href="%%ACTION_URL%%" background-color="#2563eb" color="#ffffff" align="left">%%ACTION_LABEL%%</mj-button>' : ''}
      </mj-column>
    </mj-section>
    <mj-section padding="12px 24px">
      <mj-column>
        <mj-text font-size="12px" line-height="18px" color="#6b7280">%%FOOTER%%</mj-text>
      </mj-column>
    </mj-section>
  </mj-body>
</mjml>`;

let layouts: Promise<{ plain: string; withAction: string }> | undefined;

async function compile(source: string): Promise<string> {
  const { default: mjml2html } = await import('mjml');
  const result = await mjml2html(source, { validationLevel: 'strict', minify: false });
  return result.html;
}

/** The two compiled layouts, made on first use. */
function compiledLayouts(): Promise<{ plain: string; withAction: string }> {
  layouts ??= (async () => ({ plain: await compile(layoutSource(false)), withAction: await compile(layoutSource(true)) }))();
  return layouts;
}

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (character) => ESCAPES[character]!);
}

/** Line breaks a person typed (notes, answers) stay line breaks. */
function escapeLines(text: string): string {
  return escapeHtml(text).replace(/\r?\n/g, '<br>');
}

/** What the mail is about, for its footer: a booking, or the recipient's account. */
export type MailTopic = 'a booking' | 'your account';

function footer(siteUrl: string, topic: MailTopic): string {
  return `Sent by the scheduling service at ${new URL(siteUrl).host} about ${topic}.`;
}

export async function renderHtml(content: MailContent, siteUrl: string, topic: MailTopic = 'a booking'): Promise<string> {
  const compiled = await compiledLayouts();
  const values: Record<string, string> = {
    SUBJECT: escapeHtml(content.subject),
    PREVIEW: escapeHtml(content.paragraphs[0] ?? content.heading),
    HEADING: escapeHtml(content.heading),
    PARAGRAPHS: content.paragraphs.map((paragraph) => `<p style="margin:0 0 12px">${escapeLines(paragraph)}</p>`).join(''),
    DETAILS: content.details
      .map(({ label, value, link }) => {
        const linked = link ? ` — <a href="${escapeHtml(link.url)}">${escapeHtml(link.label)}</a>` : '';
        return `<tr><td style="width:35%;vertical-align:top;color:#6b7280">${escapeHtml(label)}</td><td>${escapeLines(value)}${linked}</td></tr>`;
      })
      .join(''),
    ACTION_URL: escapeHtml(content.action?.url ?? ''),
    ACTION_LABEL: escapeHtml(content.action?.label ?? ''),
    FOOTER: escapeHtml(footer(siteUrl, topic)),
  };
  // One pass, so a value that happens to contain a placeholder's text is never filled again.
  return (content.action ? compiled.withAction : compiled.plain).replace(/%%([A-Z_]+)%%/g, (_, name: string) => values[name] ?? '');
}

export function renderText(content: MailContent, siteUrl: string, topic: MailTopic = 'a booking'): string {
  const blocks = [content.heading, ...content.paragraphs];
  if (content.details.length > 0) blocks.push(content.details.map(({ label, value, link }) => `${label}: ${value}${link ? ` — ${link.label}: ${link.url}` : ''}`).join('\n'));
  if (content.action) blocks.push(`${content.action.label}: ${content.action.url}`);
  blocks.push(`-- \n${footer(siteUrl, topic)}`);
  return `${blocks.join('\n\n')}\n`;
}
