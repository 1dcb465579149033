import { type FormEvent, useState } from 'react';
import { api } from '../../api.ts';
import { SelectField, TextField } from '../../components/fields.tsx';
import { timeZoneChoices } from '../../time.ts';
import { useSession } from '../session.ts';
import { AccountCard } from './AccountCard.tsx';
import { useAccountAction } from './useAccountAction.ts';

/** Name, time zone and the booking pages' slug: `users.update`, the procedure behind PATCH /me. */
export function ProfileSection() {
  const { user, updateUser } = useSession();
  const [name, setName] = useState(user.name ?? '');
  const [timezone, setTimezone] = useState(user.timezone);
  const [slug, setSlug] = useState(user.slug);
  const action = useAccountAction(['name', 'timezone', 'slug']);

  const submit = (event: FormEvent) => {
    event.preventDefault();
    void action.run(async () => {
      const changes = {
        ...(name.trim() !== (user.name ?? '') ? { name: name.trim() === '' ? null : name } : {}),
        ...(timezone !== user.timezone ? { timezone } : {}),
        ...(slug !== user.slug ? { slug } : {}),
      };
      if (Object.keys(changes).length === 0) return 'Nothing to save: nothing changed.';
      const saved = await api.users.update.mutate(changes);
      updateUser(saved);
      setName(saved.name ?? '');
      setSlug(saved.slug);
      return 'slug' in changes
        ? 'Saved. Your booking pages have their new address; links with the old one lead there.'
        : 'Saved.';
    });
  };

  return (
    <AccountCard name="profile" title="Profile" intro="How invitees see you, and where your booking pages live." done={action.done} error={action.error}>
      <form className="form" onSubmit={submit} noValidate>
        <div className="form-grid form-grid-wide">
          <TextField label="Name" autoComplete="name" maxLength={200} value={name} onChange={(e) => setName(e.target.value)} error={action.fields.name} />
          <SelectField label="Time zone" value={timezone} onChange={(e) => setTimezone(e.target.value)} error={action.fields.timezone} hint="Your weekly hours are in this zone.">
            {timeZoneChoices(user.timezone).map((zone) => (
              <option key={zone} value={zone}>
                {zone.replaceAll('_', ' ')}
              </option>
            ))}
          </SelectField>
        </div>
        <TextField
          label="Booking page address"
          value={slug}
          autoCapitalize="none"
          autoCorrect="off"
          spellCheck={false}
          maxLength={40}
          onChange={(e) => setSlug(e.target.value.toLowerCase())}
          error={action.fields.slug}
          hint={
            <>
              Your pages are at <span className="mono break">{`${window.location.origin}/book/${slug || '…'}/…`}</span>. 3 to 40 lowercase
              letters, digits and hyphens. After a change, links with the old address keep working.
            </>
          }
        />
        <div className="btn-row">
          <button type="submit" className="btn btn-primary" disabled={action.busy}>
            {action.busy ? 'Saving…' : 'Save profile'}
          </button>
        </div>
      </form>
    </AccountCard>
  );
}
