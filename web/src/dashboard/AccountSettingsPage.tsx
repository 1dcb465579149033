import { DeleteSection, ExportSection } from './account/DataSection.tsx';
import { EmailSection } from './account/EmailSection.tsx';
import { PasswordSection } from './account/PasswordSection.tsx';
import { ProfileSection } from './account/ProfileSection.tsx';
import { SessionsSection } from './account/SessionsSection.tsx';

/** /app/settings/account: profile, sign-in address, password, sessions, the account's data, deleting it. */
export function AccountSettingsPage() {
  return (
    <>
      <div className="page-header">
        <h1>Account</h1>
        <p>Your profile and booking page address, how you sign in, and your data.</p>
      </div>
      <div className="stack">
        <ProfileSection />
        <EmailSection />
        <PasswordSection />
        <SessionsSection />
        <ExportSection />
        <DeleteSection />
      </div>
    </>
  );
}
