import { GrantedAppsSection } from './developer/GrantedAppsSection.tsx';
import { OAuthAppsSection } from './developer/OAuthAppsSection.tsx';
import { TokensSection } from './developer/TokensSection.tsx';
import { WebhooksSection } from './developer/WebhooksSection.tsx';
import { planName } from './format.ts';
import { useSession } from './session.ts';

/** /app/settings/developer: personal access tokens, OAuth apps, the apps the user has authorized, and webhooks. */
export function DeveloperSettingsPage() {
  const { user } = useSession();
  return (
    <>
      <div className="page-header">
        <h1>Developer settings</h1>
        <p>
          Create tokens for scripts and integrations, register OAuth apps that act on behalf of other people, and
          review the apps you have given access to your account, and have events POSTed to your own endpoints.
        </p>
      </div>
      <div className="stack">
        {user.plan !== 'team' && (
          <div className="notice notice-info" data-testid="plan-notice">
            <strong>API access is part of the Team plan.</strong> Your account is on the {planName(user.plan)} plan, so
            you cannot create personal access tokens or OAuth apps. You can still review and revoke anything listed here.
          </div>
        )}
        <TokensSection canCreate={user.plan === 'team'} />
        <OAuthAppsSection canCreate={user.plan === 'team'} />
        <GrantedAppsSection />
        <WebhooksSection canCreate={user.plan === 'team'} />
      </div>
    </>
  );
}
