import { describe, expect, it } from 'vitest';
import { safeNextPath } from './login.ts';

describe('safeNextPath (open-redirect protection)', () => {
  it('keeps same-origin relative paths with their query', () => {
    expect(safeNextPath('/oauth/authorize?client_id=oci_x&scope=read%3Aprofile')).toBe(
      '/oauth/authorize?client_id=oci_x&scope=read%3Aprofile',
    );
    expect(safeNextPath('/app/settings')).toBe('/app/settings');
  });

  it('returns the normalised path, so what is checked is what the browser follows', () => {
    expect(safeNextPath('/app/./x/../settings')).toBe('/app/settings');
    expect(safeNextPath('/app/%2e%2e/login')).toBe('/login');
    expect(safeNextPath('/app//settings')).toBe('/app//settings');
  });

  it('falls back to /login for anything that could leave the site', () => {
    for (const next of [
      undefined,
      '',
      'https://evil.example/',
      '//evil.example/path',
      '/\\evil.example',
      '/\\/evil.example',
      'javascript:alert(1)',
      '\\\\evil.example',
      ' /app',
      '/app\n/evil',
      '/a\tb',
      'evil.example',
      '/.//evil.example.net',
      '/x/..//evil.example.net',
      '/%2e//evil.example.net',
      '/%2E%2e//evil.example.net',
      '/app/%2e%2e/%2e%2e//evil.example.net',
      '/./\\evil.example.net',
      '/%2e/%2e//evil.example.net?x=1',
      '/app/../..//evil.example.net',
    ]) {
      expect(safeNextPath(next), String(next)).toBe('/login');
    }
  });
});
