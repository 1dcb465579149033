import { useEffect } from 'react';
import { isEmbedded, postHeightToParent } from './embed.ts';
import { BookingPage } from './pages/BookingPage.tsx';
import { ManageBookingPage } from './pages/ManageBookingPage.tsx';
import { DeveloperSettingsPage } from './pages/DeveloperSettingsPage.tsx';
import { NotFoundPage } from './pages/NotFoundPage.tsx';

const MANAGE_PATH = /^\/book\/manage\/([^/]+)\/?$/;
const BOOKING_PATH = /^\/book\/([^/]+)\/([^/]+)\/?$/;
const SETTINGS_PATH = /^\/app(?:\/(?:settings(?:\/developer)?\/?)?)?$/;

/**
 * The pages, chosen by the address; the server sends this app for /app/…, /book/:user/:eventType and
 * /book/manage/:token. A booking page framed by /embed.js (`?embed=1`) reports its height to the frame's parent.
 */
export function App() {
  useEffect(() => {
    if (!isEmbedded()) return undefined;
    document.documentElement.classList.add('embedded');
    return postHeightToParent();
  }, []);
  return <Page />;
}

function Page() {
  const path = window.location.pathname;
  const manage = MANAGE_PATH.exec(path);
  if (manage?.[1]) return <ManageBookingPage token={decodeURIComponent(manage[1])} />;
  const booking = BOOKING_PATH.exec(path);
  if (booking?.[1] && booking[2]) {
    const key = new URLSearchParams(window.location.search).get('key');
    return (
      <BookingPage
        userSlug={decodeURIComponent(booking[1])}
        eventTypeSlug={decodeURIComponent(booking[2])}
        privateKey={key}
      />
    );
  }
  if (SETTINGS_PATH.test(path)) return <DeveloperSettingsPage />;
  return <NotFoundPage />;
}
