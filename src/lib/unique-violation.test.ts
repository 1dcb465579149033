import { describe, expect, it } from 'vitest';
import { violatedUniqueConstraint } from './unique-violation.ts';

describe('violatedUniqueConstraint', () => {
  const violation = Object.assign(new Error('duplicate key value violates unique constraint'), { code: '23505', constraint: 'app_user_email_key' });

  it('names the constraint of a unique violation, also wrapped by the ORM', () => {
    expect(violatedUniqueConstraint(violation)).toBe('app_user_email_key');
    expect(violatedUniqueConstraint(new Error('wrapped', { cause: violation }))).toBe('app_user_email_key');
  });

  it('is undefined for any other error', () => {
    expect(violatedUniqueConstraint(Object.assign(new Error('fk'), { code: '23503', constraint: 'x' }))).toBeUndefined();
    expect(violatedUniqueConstraint(new Error('plain'))).toBeUndefined();
    expect(violatedUniqueConstraint('text')).toBeUndefined();
  });
});
