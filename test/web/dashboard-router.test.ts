import { describe, expect, it } from 'vitest';
import { contactEmailOf, contactPath, pageFor } from '../../web/src/dashboard/router.ts';

describe('the dashboard’s addresses of one contact', () => {
  it('name the contact by e-mail address, on the Contacts page', () => {
    expect(contactPath('Ana+work@example.test')).toBe('/app/contacts/Ana%2Bwork%40example.test');
    expect(contactEmailOf(contactPath('Ana+work@example.test'))).toBe('Ana+work@example.test');
    expect(contactEmailOf('/app/contacts/ana@example.test/')).toBe('ana@example.test');
    expect(pageFor('/app/contacts/ana%40example.test')).toBe('/app/contacts');
  });

  it('are not the list, nor anything deeper, nor a broken escape', () => {
    expect(contactEmailOf('/app/contacts')).toBeNull();
    expect(contactEmailOf('/app/contacts/')).toBeNull();
    expect(contactEmailOf('/app/contacts/a/history')).toBeNull();
    expect(contactEmailOf('/app/contacts/%E0%A4%A')).toBeNull();
    expect(pageFor('/app/contacts/a/history')).toBeNull();
    expect(pageFor('/app/contacts')).toBe('/app/contacts');
  });
});
