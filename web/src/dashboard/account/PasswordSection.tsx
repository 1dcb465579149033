import { type FormEvent, useState } from 'react';
import { api } from '../../api.ts';
import { TextField } from '../../components/fields.tsx';
import { AccountCard } from './AccountCard.tsx';
import { useAccountAction } from './useAccountAction.ts';

/** A new password, held to the service's rule; the user's other sessions end. */
export function PasswordSection() {
  const [currentPassword, setCurrentPassword] = useState('');
  const [newPassword, setNewPassword] = useState('');
  const [repeated, setRepeated] = useState('');
  const action = useAccountAction(['currentPassword', 'newPassword']);
  const mismatch = repeated !== '' && repeated !== newPassword;

  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (mismatch) return;
    void action.run(async () => {
      const { signedOutSessions } = await api.account.changePassword.mutate({ currentPassword, newPassword });
      setCurrentPassword('');
      setNewPassword('');
      setRepeated('');
      const others = signedOutSessions === 1 ? '1 other session was' : `${signedOutSessions} other sessions were`;
      return `Password changed. ${others} signed out; this one stays signed in.`;
    });
  };

  return (
    <AccountCard
      name="password"
      title="Password"
      intro="At least 10 characters and not easy to guess: a few uncommon words make a good one. Changing it signs out your other sessions."
      done={action.done}
      error={action.error}
    >
      <form className="form" onSubmit={submit} noValidate>
        <div className="form-grid">
          <TextField
            label="Current password"
            type="password"
            autoComplete="current-password"
            value={currentPassword}
            onChange={(e) => setCurrentPassword(e.target.value)}
            error={action.fields.currentPassword}
          />
          <TextField
            label="New password"
            type="password"
            autoComplete="new-password"
            value={newPassword}
            onChange={(e) => setNewPassword(e.target.value)}
            error={action.fields.newPassword}
          />
          <TextField
            label="New password again"
            type="password"
            autoComplete="new-password"
            value={repeated}
            onChange={(e) => setRepeated(e.target.value)}
            error={mismatch ? 'The two new passwords differ.' : null}
          />
        </div>
        <div className="btn-row">
          <button type="submit" className="btn btn-primary" disabled={action.busy || mismatch || newPassword === '' || repeated === ''}>
            {action.busy ? 'Changing…' : 'Change password'}
          </button>
        </div>
      </form>
    </AccountCard>
  );
}
