import { useEffect } from 'react';
import { Shell } from './dashboard/Shell.tsx';
import { pageFor, usePathname } from './dashboard/router.ts';
import { isEmbedded, postHeightToParent } from './embed.ts';
import { BookingPage } from './pages/booking/BookingPage.tsx';
import { ManageBookingPage } from './pages/ManageBookingPage.tsx';
import { NotFoundPage } from './pages/NotFoundPage.tsx';

const MANAGE_PATH = /^\/book\/manage\/([^/]+)\/?$/;
const BOOKING_PATH = /^\/book\/([^/]+)\/([^/]+)\/?$/;

/**
 * The page the address names; the server sends this app for /app/…, /book/:user/:eventType and
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
  const path = usePathname();
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
  const page = pageFor(path);
  if (page) return <Shell page={page} />;
  return <NotFoundPage />;
}
