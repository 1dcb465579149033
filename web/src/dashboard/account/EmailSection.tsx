import { type FormEvent, useState } from 'react';
import { api } from '../../api.ts';
import { TextField } from '../../components/fields.tsx';
import { useSession } from '../session.ts';
import { AccountCard } from './AccountCard.tsx';
import { useAccountAction } from './useAccountAction.ts';

/** The address the user signs in with; a change asks for the password. */
export function EmailSection() {
  const { user, updateUser } = useSession();
  const [email, setEmail] = useState(user.email);
  const [currentPassword, setCurrentPassword] = useState('');
  const action = useAccountAction(['email', 'currentPassword']);

  const submit = (event: FormEvent) => {
    event.preventDefault();
    void action.run(async () => {
      const saved = await api.account.changeEmail.mutate({ email, currentPassword });
      updateUser({ email: saved.email });
      setEmail(saved.email);
      setCurrentPassword('');
      return `Saved. Sign in with ${saved.email} from now on.`;
    });
  };

  return (
    <AccountCard name="email" title="E-mail address" intro="The address you sign in with." done={action.done} error={action.error}>
      <form className="form" onSubmit={submit} noValidate>
        <div className="form-grid form-grid-wide">
          <TextField label="E-mail address" type="email" autoComplete="email" maxLength={254} value={email} onChange={(e) => setEmail(e.target.value)} error={action.fields.email} />
          <TextField
            label="Current password"
            type="password"
            autoComplete="current-password"
            value={currentPassword}
            onChange={(e) => setCurrentPassword(e.target.value)}
            error={action.fields.currentPassword}
          />
        </div>
        <div className="btn-row">
          <button type="submit" className="btn btn-primary" disabled={action.busy || email.trim() === user.email}>
            {action.busy ? 'Saving…' : 'Change e-mail address'}
          </button>
        </div>
      </form>
    </AccountCard>
  );
}
