import { BookingPage } from './pages/BookingPage.tsx';
import { DeveloperSettingsPage } from './pages/DeveloperSettingsPage.tsx';
import { NotFoundPage } from './pages/NotFoundPage.tsx';

const BOOKING_PATH = /^\/book\/([^/]+)\/([^/]+)\/?$/;
const SETTINGS_PATH = /^\/app(?:\/(?:settings(?:\/developer)?\/?)?)?$/;

/** Two pages, chosen by the address; the server sends this app for /app/… and /book/:user/:eventType. */
export function App() {
  const path = window.location.pathname;
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
