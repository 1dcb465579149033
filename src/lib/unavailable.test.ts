import { describe, expect, it } from 'vitest';
import { isUnavailableError } from './unavailable.ts';

const pgError = (code: string, message: string) => Object.assign(new Error(message), { code, severity: 'FATAL' });

describe('isUnavailableError', () => {
  it.each([
    ['connection refused', Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' })],
    ['connection reset', Object.assign(new Error('read ECONNRESET'), { code: 'ECONNRESET' })],
    ['pg: connection dropped', new Error('Connection terminated unexpectedly')],
    ['pg-pool: no connection in time', new Error('timeout exceeded when trying to connect')],
    ['admin shutdown', pgError('57P01', 'terminating connection due to administrator command')],
    ['server starting or stopping', pgError('57P03', 'the database system is shutting down')],
    ['too many connections', pgError('53300', 'sorry, too many clients already')],
    ['database gone', pgError('3D000', 'database "app" does not exist')],
    ['connections disallowed', pgError('55000', 'database "app" is not currently accepting connections')],
    ['connection failure', pgError('08006', 'connection failure')],
    ['statement_timeout', pgError('57014', 'canceling statement due to statement timeout')],
    ['lock_timeout', pgError('55P03', 'canceling statement due to lock timeout')],
    ['idle in transaction too long', pgError('25P03', 'terminating connection due to idle-in-transaction timeout')],
    ['pg: no answer within query_timeout', new Error('Query read timeout')],
    ['the request deadline', Object.assign(new Error('The request did not finish within 15000 ms.'), { code: 'REQUEST_DEADLINE_EXCEEDED' })],
    ['wrapped by the ORM', Object.assign(new Error('query failed'), { cause: pgError('57P01', 'terminating connection') })],
  ])('%s → unavailable', (_label, error) => {
    expect(isUnavailableError(error)).toBe(true);
  });

  it.each([
    ['undefined column', pgError('42703', 'column "x" does not exist')],
    ['unique violation', pgError('23505', 'duplicate key value violates unique constraint')],
    ['other 55000', pgError('55000', 'cannot refresh materialized view concurrently')],
    ['exclusion violation', pgError('23P01', 'conflicting key value violates exclusion constraint')],
    // A NUL in a text parameter: PostgreSQL cannot read the message and drops that connection; the request is at fault.
    ['protocol violation', pgError('08P01', 'invalid message format')],
    ['invalid byte sequence', pgError('22021', 'invalid byte sequence for encoding "UTF8": 0x00')],
    ['untranslatable character', pgError('22P05', 'unsupported Unicode escape sequence')],
    ['invalid text representation', pgError('22P02', 'invalid input syntax for type uuid: "x"')],
    ['a plain bug', new TypeError("Cannot read properties of undefined (reading 'id')")],
    ['not an error', 'ECONNREFUSED'],
    ['nothing', undefined],
  ])('%s → not unavailable', (_label, error) => {
    expect(isUnavailableError(error)).toBe(false);
  });
});
