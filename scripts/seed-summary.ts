import type { SeedDocument } from './demo-data.ts';

/**
 * What `npm run seed` prints without `--json`: for a person, not a program. Each user's sign-in, their token,
 * and the booking pages of their active event types (which need the user's slug, not in the seed document).
 */
export function seedSummary(document: SeedDocument, slugs: ReadonlyMap<string, string>, siteUrl: string): string {
  const lines = ['Demo data created. Sign in at ' + `${siteUrl}/login?next=%2Fapp with any of these accounts:`, ''];
  for (const user of document.users) {
    lines.push(`${user.email}  (${user.plan} plan, ${user.timezone})`);
    lines.push(`  password        ${user.password}`);
    lines.push(`  API token       ${user.pat}${user.plan === 'team' ? '' : '  (the API needs the Team plan: this one is refused)'}`);
    const slug = slugs.get(user.id);
    const pages = user.eventTypes.filter((eventType) => eventType.active);
    for (const eventType of slug ? pages : []) {
      lines.push(`  booking page    ${siteUrl}/book/${encodeURIComponent(slug ?? '')}/${encodeURIComponent(eventType.slug)}  (${eventType.name})`);
    }
    lines.push('');
  }
  lines.push(`API reference: ${siteUrl}/api/docs · the same data as JSON: npm run seed -- --json`);
  return `${lines.join('\n')}\n`;
}
