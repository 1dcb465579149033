import { describe, expect, it } from 'vitest';
import { classifySendError } from './mail-transport.ts';

describe('what a failed send means', () => {
  it('an SMTP 5xx is permanent and keeps the server’s reply; a 4xx is temporary', () => {
    expect(classifySendError({ code: 'EENVELOPE', responseCode: 550, response: '550 5.1.1 No such user' })).toEqual({
      kind: 'permanent',
      error: '550 5.1.1 No such user',
    });
    expect(classifySendError({ code: 'EENVELOPE', responseCode: 451, response: '451 4.3.0 Try later' })).toEqual({
      kind: 'temporary',
      error: '451 4.3.0 Try later',
    });
  });

  it('a refused or cut connection, a timeout or DNS is temporary', () => {
    for (const code of ['ECONNECTION', 'ETIMEDOUT', 'ESOCKET', 'EDNS', 'ETLS']) {
      expect(classifySendError({ code, message: `${code} happened` }).kind).toBe('temporary');
    }
  });

  it('a message nodemailer refuses before the server sees it is permanent', () => {
    expect(classifySendError({ code: 'EMESSAGE', message: 'bad message' }).kind).toBe('permanent');
  });
});
