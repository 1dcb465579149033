import { Shell } from './dashboard/Shell.tsx';
import { pageFor, usePathname } from './dashboard/router.ts';
import { BookingPage } from './pages/BookingPage.tsx';
import { NotFoundPage } from './pages/NotFoundPage.tsx';

const BOOKING_PATH = /^\/book\/([^/]+)\/([^/]+)\/?$/;

/** The page the address names; the server sends this app for /app/… and /book/:user/:eventType. */
export function App() {
  const path = usePathname();
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
  const page = pageFor(path);
  if (page) return <Shell page={page} />;
  return <NotFoundPage />;
}
