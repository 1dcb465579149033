import { describe, expect, it } from 'vitest';
import { DomainError } from '../../lib/errors.ts';
import type { EventTypeLocation } from '../event-types/event-type-locations.schemas.ts';
import { type LocationRequest, resolveBookingLocation } from './booking-location.ts';

const OFFICE: EventTypeLocation = { kind: 'in_person', address: 'Torstraße 1, 10119 Berlin' };
const STUDIO: EventTypeLocation = { kind: 'in_person', address: 'Rua Augusta 10, Lisboa' };
const LINK: EventTypeLocation = { kind: 'link', url: 'https://meet.example.com/olivia' };
const PHONE: EventTypeLocation = { kind: 'phone', number: '+49 30 1234567' };
const CALL_ME: EventTypeLocation = { kind: 'invitee_phone' };
const ASK: EventTypeLocation = { kind: 'ask_invitee' };

/** The 400's field path, or the resolved location. */
function outcome(offered: EventTypeLocation[], request: LocationRequest) {
  try {
    return resolveBookingLocation(offered, request);
  } catch (error) {
    if (!(error instanceof DomainError)) throw error;
    expect(error.code).toBe('invalid_request');
    return { refused: error.details?.[0]?.path };
  }
}

describe('an event type without locations', () => {
  it('keeps the invitee’s locationInput as before, as sent', () => {
    expect(outcome([], {})).toBeNull();
    expect(outcome([], { locationInput: '' })).toBeNull();
    expect(outcome([], { locationInput: ' Café Lumen ' })).toEqual({ kind: 'invitee_input', value: ' Café Lumen ' });
  });

  it('refuses a choice: there is nothing to choose', () => {
    expect(outcome([], { location: { kind: 'link' } })).toEqual({ refused: ['location'] });
  });
});

describe('one location', () => {
  it('is chosen without being named', () => {
    expect(outcome([OFFICE], {})).toEqual({ kind: 'in_person', value: OFFICE.address });
    expect(outcome([LINK], {})).toEqual({ kind: 'link', value: LINK.url });
    expect(outcome([PHONE], { location: { kind: 'phone' } })).toEqual({ kind: 'phone', value: PHONE.number });
  });

  it('of the invitee’s kinds needs what the invitee types, in location.value or locationInput', () => {
    expect(outcome([CALL_ME], {})).toEqual({ refused: ['location', 'value'] });
    expect(outcome([CALL_ME], { locationInput: '+351 912 345 678' })).toEqual({ kind: 'invitee_phone', value: '+351 912 345 678' });
    expect(outcome([ASK], { location: { kind: 'ask_invitee', value: 'Café Lumen' } })).toEqual({ kind: 'invitee_input', value: 'Café Lumen' });
    expect(outcome([ASK], { locationInput: 'Café Lumen', location: { kind: 'ask_invitee', value: 'Café Lumen' } })).toEqual({
      kind: 'invitee_input',
      value: 'Café Lumen',
    });
  });

  it('refuses a number that is not one, naming where it came from', () => {
    expect(outcome([CALL_ME], { location: { kind: 'invitee_phone', value: 'call me maybe' } })).toEqual({ refused: ['location', 'value'] });
    expect(outcome([CALL_ME], { locationInput: '12' })).toEqual({ refused: ['locationInput'] });
  });

  it('refuses input the chosen place does not take, and two different inputs', () => {
    expect(outcome([OFFICE], { locationInput: 'Somewhere else' })).toEqual({ refused: ['locationInput'] });
    expect(outcome([ASK], { locationInput: 'A', location: { kind: 'ask_invitee', value: 'B' } })).toEqual({ refused: ['locationInput'] });
  });
});

describe('several locations', () => {
  const offered = [OFFICE, STUDIO, LINK, PHONE, CALL_ME, ASK];

  it('need a choice', () => {
    expect(outcome(offered, {})).toEqual({ refused: ['location'] });
    expect(outcome(offered, { locationInput: 'Café' })).toEqual({ refused: ['location'] });
  });

  it('take the chosen one, with its text', () => {
    expect(outcome(offered, { location: { kind: 'link' } })).toEqual({ kind: 'link', value: LINK.url });
    expect(outcome(offered, { location: { kind: 'phone' } })).toEqual({ kind: 'phone', value: PHONE.number });
    expect(outcome(offered, { location: { kind: 'invitee_phone', value: ' +1 (415) 555-0123 ' } })).toEqual({ kind: 'invitee_phone', value: '+1 (415) 555-0123' });
    expect(outcome(offered, { location: { kind: 'ask_invitee', value: 'Café Lumen' } })).toEqual({ kind: 'invitee_input', value: 'Café Lumen' });
  });

  it('name an address among several, in any letter case; the stored text is the host’s', () => {
    expect(outcome(offered, { location: { kind: 'in_person' } })).toEqual({ refused: ['location', 'value'] });
    expect(outcome(offered, { location: { kind: 'in_person', value: 'rua augusta 10, lisboa' } })).toEqual({ kind: 'in_person', value: STUDIO.address });
    expect(outcome(offered, { location: { kind: 'in_person', value: 'Elsewhere 5' } })).toEqual({ refused: ['location', 'value'] });
    expect(outcome(offered, { location: { kind: 'link', value: 'https://evil.example.com' } })).toEqual({ refused: ['location', 'value'] });
  });

  it('never name the host’s number or link in a refusal (strangers book on the public page)', () => {
    for (const request of [{ location: { kind: 'link' as const, value: 'https://guess.example.com' } }, { location: { kind: 'phone' as const, value: '+1 555 0100' } }, {}]) {
      try {
        resolveBookingLocation(offered, request);
        expect.unreachable();
      } catch (error) {
        expect((error as Error).message).not.toMatch(/meet\.example\.com|1234567/);
      }
    }
  });

  it('refuse a kind the event type does not offer', () => {
    expect(outcome([OFFICE, LINK], { location: { kind: 'phone' } })).toEqual({ refused: ['location', 'kind'] });
  });
});
