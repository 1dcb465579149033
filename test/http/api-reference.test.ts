import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ALL_SCOPES } from '../../src/identity/scopes.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { authorizeAs, createPasswordUser, pkcePair, signIn } from '../oauth/support.ts';

// Plain http on a loopback address, as in development: the session cookie then has no __Host- prefix to expect.
const SITE_URL = 'http://127.0.0.1:3917';

let t: TestApp;

beforeAll(async () => {
  t = await startTestApp({ env: { SITE_URL } });
});

afterAll(async () => {
  await t?.close();
});

/** What /api/docs/init.js hands Scalar: the document's URL and the OAuth settings of "Authorize". */
interface ReferenceConfiguration {
  url: string;
  authentication: {
    preferredSecurityScheme: string;
    securitySchemes: {
      oauth2: { flows: { authorizationCode: Record<string, string> & { selectedScopes: string[] } } };
    };
  };
}

async function referenceConfiguration(): Promise<ReferenceConfiguration> {
  const init = await t.http.get('/api/docs/init.js');
  expect(init.status).toBe(200);
  expect(init.headers['content-type']).toMatch(/^application\/javascript/);
  const match = /^Scalar\.createApiReference\('#reference', (.*)\);\n$/s.exec(init.text);
  expect(match, init.text).not.toBeNull();
  return JSON.parse(match![1]!) as ReferenceConfiguration;
}

describe('the API reference page', () => {
  it('is HTML that loads only scripts of this site, no inline script, under a tight CSP', async () => {
    const page = await t.http.get('/api/docs');
    expect(page.status).toBe(200);
    expect(page.headers['content-type']).toMatch(/^text\/html/);
    const csp = String(page.headers['content-security-policy']);
    expect(csp).toContain("script-src 'self'");
    expect(csp).toContain("connect-src 'self'");
    expect(csp).toContain("frame-ancestors 'none'");
    expect(csp).not.toMatch(/unsafe-eval|script-src[^;]*unsafe-inline|https?:/);

    const references = [...page.text.matchAll(/(?:src|href)="([^"]+)"/g)].map((m) => m[1]!);
    expect(references).toEqual(expect.arrayContaining(['/api/docs/scalar/js/scalar.js', '/api/docs/init.js']));
    for (const reference of references) expect(reference, 'a path on this site').toMatch(/^\/[^/]/);
    expect(page.text).not.toMatch(/<script(?![^>]*\bsrc=)/);

    for (const script of [...page.text.matchAll(/<script src="([^"]+)"/g)].map((m) => m[1]!)) {
      const res = await t.http.get(script);
      expect(res.status, script).toBe(200);
      expect(res.headers['content-type'], script).toMatch(/^application\/javascript/);
    }
  });

  it('serves Scalar’s bundle from this process, which needs no CDN, and nothing else of the plugin', async () => {
    const bundle = await t.http.get('/api/docs/scalar/js/scalar.js').buffer(true);
    expect(bundle.text.length).toBeGreaterThan(1_000_000);
    expect(bundle.text).toContain('createApiReference');
    expect(bundle.headers['cache-control']).toMatch(/max-age/);
    // The plugin's own page inlines its script, which the CSP would refuse: not served.
    expect((await t.http.get('/api/docs/scalar/')).status).toBe(404);
    expect((await t.http.get('/api/docs/scalar')).status).toBe(404);
  });

  it('tells Scalar where the document is, to load no fonts from elsewhere, and how to sign in with PKCE', async () => {
    const configuration = await referenceConfiguration();
    expect(configuration).toMatchObject({ url: '/api/docs/openapi.json', withDefaultFonts: false });
    const flow = configuration.authentication.securitySchemes.oauth2.flows.authorizationCode;
    expect(flow['x-scalar-client-id']).toBe('oci_api_reference');
    expect(flow['x-scalar-redirect-uri']).toBe(`${SITE_URL}/api/docs/oauth2-redirect`);
    expect(flow['x-usePkce']).toBe('SHA-256');
    expect(flow.selectedScopes.sort()).toEqual([...ALL_SCOPES].sort());
  });

  it('starts "Try it" with OAuth, and says in the document how to get and use a personal access token instead', async () => {
    const configuration = await referenceConfiguration();
    const document = (await t.http.get(configuration.url)).body as {
      info: { description: string };
      components: { securitySchemes: Record<string, { type: string; scheme?: string }> };
    };
    expect(document.components.securitySchemes[configuration.authentication.preferredSecurityScheme]).toEqual(
      expect.objectContaining({ type: 'oauth2' }),
    );
    expect(document.components.securitySchemes.bearerAuth).toEqual(expect.objectContaining({ type: 'http', scheme: 'bearer' }));
    expect(document.info.description).toContain('To use a personal access token (`pat_…`) instead, choose *bearerAuth* and paste it');
    expect(document.info.description).toContain(`${SITE_URL}/app/settings/developer`);
    expect(document.info.description).toContain('npm run -s cli -- pat create');
  });

  it('has a redirect page for the sign-in popup', async () => {
    const res = await t.http.get('/api/docs/oauth2-redirect?code=oac_x&state=abc');
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toMatch(/^text\/html/);
    expect(res.headers['referrer-policy']).toBe('no-referrer');
    expect(res.text).toContain('API reference');
  });
});

describe('signing in from the API reference (the HTTP exchanges its popup makes)', () => {
  it('authorizes the reference’s public client with PKCE, redeems the code and calls the API', async () => {
    const flow = (await referenceConfiguration()).authentication.securitySchemes.oauth2.flows.authorizationCode;
    const user = await createPasswordUser(t.em());
    const cookie = await signIn(t.http, user);
    const pkce = pkcePair();
    const state = 'k3j4h5g6';
    const location = await authorizeAs(t.http, cookie, {
      response_type: 'code',
      client_id: flow['x-scalar-client-id']!,
      redirect_uri: flow['x-scalar-redirect-uri']!,
      scope: flow.selectedScopes.join(' '),
      state,
      code_challenge: pkce.challenge,
      code_challenge_method: 'S256',
    });
    expect(`${location.origin}${location.pathname}`).toBe(flow['x-scalar-redirect-uri']);
    expect(location.searchParams.get('state')).toBe(state);
    const code = location.searchParams.get('code')!;
    expect(code).toMatch(/^oac_/);

    const token = await t.http.post('/oauth/token').type('form').send({
      grant_type: 'authorization_code',
      code,
      code_verifier: pkce.verifier,
      redirect_uri: flow['x-scalar-redirect-uri'],
      client_id: flow['x-scalar-client-id'],
    });
    expect(token.status, token.text).toBe(200);
    expect(token.headers['access-control-allow-origin']).toBe('*');
    expect(token.body).toMatchObject({ token_type: 'Bearer', access_token: expect.stringMatching(/^oat_/) });

    const me = await t.http.get('/api/v2/me').set('Authorization', `Bearer ${token.body.access_token as string}`);
    expect(me.status).toBe(200);
    expect(me.body.email).toBe(user.email);
  });

  it('refuses the code without its PKCE verifier: the client is public', async () => {
    const flow = (await referenceConfiguration()).authentication.securitySchemes.oauth2.flows.authorizationCode;
    const user = await createPasswordUser(t.em());
    const cookie = await signIn(t.http, user);
    const pkce = pkcePair();
    const location = await authorizeAs(t.http, cookie, {
      response_type: 'code',
      client_id: flow['x-scalar-client-id']!,
      redirect_uri: flow['x-scalar-redirect-uri']!,
      scope: 'read:profile',
      state: 's',
      code_challenge: pkce.challenge,
      code_challenge_method: 'S256',
    });
    const token = await t.http.post('/oauth/token').type('form').send({
      grant_type: 'authorization_code',
      code: location.searchParams.get('code'),
      redirect_uri: flow['x-scalar-redirect-uri'],
      client_id: flow['x-scalar-client-id'],
    });
    expect(token.status).toBe(400);
    expect(token.body.error).toBe('invalid_grant');
  });

  it('registers the client once however often the app starts (idempotent)', async () => {
    const again = await startTestApp({ env: { SITE_URL } });
    try {
      const rows = await again.em().getConnection().execute(`select count(*)::int as n from oauth_client where client_id = 'oci_api_reference'`);
      expect(rows).toEqual([{ n: 1 }]);
    } finally {
      await again.close();
    }
  });
});

describe('what the OpenAPI document links to', () => {
  it('resolves the license link to the repository’s LICENSE', async () => {
    const doc = (await t.http.get('/api/docs/openapi.json')).body as { info: { license: { url: string } } };
    const url = new URL(doc.info.license.url);
    expect(url.origin).toBe(SITE_URL);
    const res = await t.http.get(url.pathname);
    expect(res.status).toBe(200);
    expect(res.text).toBe(readFileSync('LICENSE', 'utf8'));
  });

  it('links the quickstart (externalDocs and the description) and every guide, each served from docs/', async () => {
    const doc = (await t.http.get('/api/docs/openapi.json')).body as {
      info: { description: string };
      externalDocs: { url: string };
    };
    expect(doc.externalDocs.url).toBe(`${SITE_URL}/docs/quickstart.md`);
    const links = [...doc.info.description.matchAll(/\]\((http[^)]+)\)/g)].map((m) => m[1]!);
    expect(links).toEqual(expect.arrayContaining([`${SITE_URL}/docs/quickstart.md`, `${SITE_URL}/docs/webhooks.md`]));
    for (const link of links) {
      const { pathname } = new URL(link);
      const res = await t.http.get(pathname);
      expect(res.status, pathname).toBe(200);
      expect(res.headers['content-type']).toMatch(/^text\/plain; charset=utf-8/);
      expect(res.text).toBe(readFileSync(pathname.slice(1), 'utf8'));
    }
  });
});
