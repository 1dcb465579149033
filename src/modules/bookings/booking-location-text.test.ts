import { describe, expect, it } from 'vitest';
import { locationLine, locationSentence, meetingLink } from './booking-location-text.ts';

const names = { hostName: 'Olivia', inviteeName: 'Inês' };

describe('a booking’s location in words', () => {
  it('one line for LOCATION: the address, link or typed place; phone numbers marked as such', () => {
    expect(locationLine({ kind: 'in_person', value: 'Torstraße 1' })).toBe('Torstraße 1');
    expect(locationLine({ kind: 'link', value: 'https://meet.example.com/o' })).toBe('https://meet.example.com/o');
    expect(locationLine({ kind: 'phone', value: '+49 30 1234567' })).toBe('Phone: +49 30 1234567');
    expect(locationLine({ kind: 'invitee_phone', value: '+351 912' })).toBe('Phone: +351 912');
    expect(locationLine({ kind: 'invitee_input', value: 'Café Lumen' })).toBe('Café Lumen');
    // A kind of another time, without a value, is still said.
    expect(locationLine({ kind: 'video_call', value: null })).toBe('video call');
  });

  it('the link only for an online meeting', () => {
    expect(meetingLink({ kind: 'link', value: 'https://meet.example.com/o' })).toBe('https://meet.example.com/o');
    expect(meetingLink({ kind: 'in_person', value: 'https://not-a-link.example' })).toBeNull();
    expect(meetingLink(null)).toBeNull();
  });

  it('who calls whom, to each reader', () => {
    const phone = { kind: 'phone', value: '+49 30 1234567' };
    expect(locationSentence(phone, { ...names, audience: 'invitee' })).toBe('Call Olivia at +49 30 1234567');
    expect(locationSentence(phone, { ...names, audience: 'host' })).toBe('Inês calls you at +49 30 1234567');
    expect(locationSentence(phone, { ...names, audience: 'guest' })).toBe('Inês calls Olivia at +49 30 1234567');
    const callMe = { kind: 'invitee_phone', value: '+351 912' };
    expect(locationSentence(callMe, { ...names, audience: 'invitee' })).toBe('Olivia calls you at +351 912');
    expect(locationSentence(callMe, { ...names, audience: 'host' })).toBe('Call Inês at +351 912');
    expect(locationSentence(callMe, { ...names, audience: 'guest' })).toBe('Olivia calls Inês at +351 912');
    expect(locationSentence({ kind: 'in_person', value: 'Torstraße 1' }, { ...names, audience: 'guest' })).toBe('In person at Torstraße 1');
    expect(locationSentence({ kind: 'link', value: 'https://m.example' }, { ...names, audience: 'host' })).toBe('Online at https://m.example');
  });
});
