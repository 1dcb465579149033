import { describe, expect, it } from 'vitest';
import { DomainError } from '../../lib/errors.ts';
import { holderOf, holdExpiry, holdMismatch, holdRefusal, pageHolder } from './hold-rules.ts';

describe('slot hold rules', () => {
  it('makes a hold the user’s for their tokens and session, and an OAuth grant’s for an app', () => {
    expect(holderOf({ userId: 'u1', credential: { kind: 'pat', id: 'pat1' } })).toBe('user:u1');
    expect(holderOf({ userId: 'u1', credential: { kind: 'pat', id: 'pat2' } })).toBe('user:u1');
    expect(holderOf({ userId: 'u1', credential: { kind: 'session', id: 's1' } })).toBe('user:u1');
    expect(holderOf({ userId: 'u1', credential: { kind: 'oauth', id: 'grant1' } })).toBe('oauth:grant1');
    expect(holderOf({ userId: 'u1', credential: { kind: 'oauth', id: 'grant2' } })).not.toBe(holderOf({ userId: 'u1', credential: { kind: 'oauth', id: 'grant1' } }));
    expect(pageHolder('abc')).toBe('page:abc');
  });

  it('ends a hold its lifetime after it was made', () => {
    expect(holdExpiry(new Date('2026-03-02T10:00:00Z'), 600_000).toISOString()).toBe('2026-03-02T10:10:00.000Z');
    expect(holdExpiry(new Date('2026-03-02T10:00:00Z'), 20_000).toISOString()).toBe('2026-03-02T10:00:20.000Z');
  });

  it('refuses group event types and durations not offered as bad input, an inactive event type as a conflict', () => {
    const oneOnOne = { kind: 'one_on_one' as const, active: true, durationsMin: [30, 60] };
    expect(holdRefusal(oneOnOne, 30)).toBeUndefined();
    expect(holdRefusal({ ...oneOnOne, kind: 'round_robin' }, 60)).toBeUndefined();
    expect(holdRefusal({ ...oneOnOne, kind: 'collective' }, 60)).toBeUndefined();
    const group = holdRefusal({ ...oneOnOne, kind: 'group' }, 30);
    expect(group).toMatchObject({ code: 'invalid_request', details: [{ path: ['eventTypeId'] }] });
    expect(holdRefusal(oneOnOne, 45)).toMatchObject({ code: 'invalid_request', details: [{ path: ['durationMin'], message: expect.stringContaining('30, 60') }] });
    const inactive = holdRefusal({ ...oneOnOne, active: false }, 30);
    expect(inactive).toBeInstanceOf(DomainError);
    expect(inactive?.code).toBe('conflict');
  });

  it('names the first field of a booking that differs from its hold’s slot', () => {
    const held = { eventTypeId: 'et1', start: Date.parse('2026-03-02T10:00:00Z'), durationMin: 30 };
    expect(holdMismatch(held, { ...held })).toBeUndefined();
    // The same instant written with another offset is the same start.
    expect(holdMismatch(held, { ...held, start: Date.parse('2026-03-02T11:00:00+01:00') })).toBeUndefined();
    expect(holdMismatch(held, { ...held, eventTypeId: 'et2', start: 0 })).toBe('eventTypeId');
    expect(holdMismatch(held, { ...held, start: held.start + 60_000 })).toBe('start');
    expect(holdMismatch(held, { ...held, durationMin: 60 })).toBe('durationMin');
  });
});
