import net from 'node:net';
import supertest, { type Response } from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type App, buildApp } from '../../src/app.ts';
import { loadEnv } from '../../src/config/env.ts';
import { initOrm, type Orm } from '../../src/db/orm.ts';
import { createTestDatabase, startTestApp, type TestApp, type TestDatabase } from '../helpers/app.ts';
import { bearer, createUserWithToken, type TestUser } from '../helpers/factories.ts';
import { adminQuery } from '../helpers/admin-query.ts';

/**
 * When the database goes away the API answers a clean 503 with Retry-After (not a 500), /healthz says 503,
 * and both recover by themselves once the database is back, without restarting the app.
 */

const terminateConnections = (database: string) =>
  adminQuery('select pg_terminate_backend(pid) from pg_stat_activity where datname = $1 and pid <> pg_backend_pid()', [
    database,
  ]);

function expectUnavailable(res: Response): void {
  expect(res.status, res.text).toBe(503);
  expect(res.body).toEqual({ title: 'Service Unavailable', message: expect.any(String) });
  expect(res.headers['retry-after']).toMatch(/^[1-9]\d*$/);
  expect(res.text).not.toMatch(/test_|database|postgres|ECONN|terminat/i);
}

/** Requests right after the database comes back may still meet a connection that died meanwhile; a few tries settle it. */
async function eventually(request: () => Promise<Response>, status: number): Promise<Response> {
  let res = await request();
  for (let attempt = 0; attempt < 10 && res.status !== status; attempt++) {
    expect(res.status, res.text).not.toBe(500);
    await new Promise((resolve) => setTimeout(resolve, 100));
    res = await request();
  }
  return res;
}

describe('the database going away', () => {
  let t: TestApp;
  let user: TestUser;
  const me = () => t.http.get('/api/v2/me').set(...bearer(user.token));

  beforeAll(async () => {
    t = await startTestApp();
    user = await createUserWithToken(t.em());
  });
  afterAll(async () => {
    await adminQuery(`alter database ${t.database.name} allow_connections true`);
    await t.close();
  });

  it('refusing connections gives 503 with Retry-After, and the app recovers when it accepts them again', async () => {
    expect((await me()).status).toBe(200);
    await adminQuery(`alter database ${t.database.name} allow_connections false`);
    try {
      await terminateConnections(t.database.name);
      expectUnavailable(await me());
      expectUnavailable(await me());
      // /trpc answers the same outage in the same words and with the same Retry-After, in tRPC's envelope.
      const viaTrpc = await t.http.get('/trpc/users.me').set(...bearer(user.token));
      expect(viaTrpc.status, viaTrpc.text).toBe(503);
      expect(viaTrpc.headers['retry-after']).toMatch(/^[1-9]\d*$/);
      expect(viaTrpc.body.error.json).toMatchObject({ title: 'Service Unavailable', message: expect.any(String) });
      const health = await t.http.get('/healthz');
      expect(health.status).toBe(503);
      expect(health.body).toEqual({ status: 'unavailable' });
    } finally {
      await adminQuery(`alter database ${t.database.name} allow_connections true`);
    }
    const res = await eventually(me, 200);
    expect(res.status).toBe(200);
    expect(res.body.id).toBe(user.id);
    expect((await t.http.get('/healthz')).body).toEqual({ status: 'ok' });
  });

  it('a database renamed away gives 503, and the app recovers when the name is back', async () => {
    const name = t.database.name;
    await adminQuery(`alter database ${name} allow_connections false`);
    await terminateConnections(name);
    await adminQuery(`alter database ${name} rename to ${name}_away`);
    try {
      expectUnavailable(await me());
      expect((await t.http.get('/healthz')).status).toBe(503);
    } finally {
      await adminQuery(`alter database ${name}_away rename to ${name}`);
      await adminQuery(`alter database ${name} allow_connections true`);
    }
    expect((await eventually(me, 200)).status).toBe(200);
    expect((await t.http.get('/healthz')).status).toBe(200);
  });

  it('connections killed under a running app are replaced without a 500', async () => {
    expect((await me()).status).toBe(200);
    await terminateConnections(t.database.name);
    const res = await eventually(me, 200);
    expect(res.status).toBe(200);
  });
});

/** A TCP relay between the app and PostgreSQL that the test can cut, like a server going down or a network partition. */
class Relay {
  private server: net.Server | undefined;
  private readonly sockets = new Set<net.Socket>();
  port = 0;
  private readonly upstream: { host: string; port: number };

  constructor(upstream: { host: string; port: number }) {
    this.upstream = upstream;
  }

  async start(): Promise<void> {
    if (this.server?.listening) return;
    this.server = net.createServer((client) => {
      const server = net.connect(this.upstream.port, this.upstream.host);
      for (const socket of [client, server]) {
        this.sockets.add(socket);
        socket.on('close', () => this.sockets.delete(socket));
        socket.on('error', () => {
          client.destroy();
          server.destroy();
        });
      }
      client.pipe(server).pipe(client);
    });
    await new Promise<void>((resolve) => this.server!.listen(this.port, '127.0.0.1', resolve));
    this.port = (this.server.address() as net.AddressInfo).port;
  }

  /** Stops accepting connections and resets the open ones: new connections are refused. */
  async cut(): Promise<void> {
    const closed = new Promise<void>((resolve) => this.server?.close(() => resolve()));
    for (const socket of this.sockets) socket.resetAndDestroy();
    await closed;
  }
}

describe('the database server becoming unreachable', () => {
  let database: TestDatabase;
  let relay: Relay;
  let orm: Orm;
  let app: App;
  let http: ReturnType<typeof supertest>;
  let user: TestUser;
  const me = () => http.get('/api/v2/me').set(...bearer(user.token));

  beforeAll(async () => {
    database = await createTestDatabase();
    const direct = new URL(database.url);
    relay = new Relay({ host: direct.hostname, port: Number(direct.port || 5432) });
    await relay.start();
    const relayed = new URL(database.url);
    relayed.hostname = '127.0.0.1';
    relayed.port = String(relay.port);
    orm = await initOrm(relayed.toString(), { poolMax: 5 });
    app = await buildApp({
      env: loadEnv({ NODE_ENV: 'test', LOG_LEVEL: 'silent', DATABASE_URL: relayed.toString() }),
      orm,
      databaseUrl: relayed.toString(),
      logger: false,
    });
    await app.fastify.ready();
    http = supertest(app.fastify.server);
    user = await createUserWithToken(orm.em.fork());
  });
  afterAll(async () => {
    await app.close();
    await orm.close();
    await relay.cut();
    await database.drop();
  });

  it('gives 503 while the server is unreachable and recovers when it is back', async () => {
    expect((await me()).status).toBe(200);
    await relay.cut();
    expectUnavailable(await me());
    expectUnavailable(await me());
    expect((await http.get('/healthz')).status).toBe(503);
    await relay.start();
    const res = await eventually(me, 200);
    expect(res.status).toBe(200);
    expect(res.body.email).toBe(user.email);
    expect((await http.get('/healthz')).status).toBe(200);
  });
});
