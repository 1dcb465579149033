import { type MouseEvent, useEffect, useState } from 'react';

/** The dashboard's pages, by the path under /app they live at. */
export const PAGES = [
  { path: '/app/bookings', label: 'Bookings' },
  { path: '/app/event-types', label: 'Event types' },
  { path: '/app/availability', label: 'Availability' },
  { path: '/app/calendars', label: 'Calendars' },
  { path: '/app/leads', label: 'Leads' },
  { path: '/app/contacts', label: 'Contacts' },
  { path: '/app/settings/account', label: 'Account' },
  { path: '/app/settings/developer', label: 'Developer settings' },
] as const;

export type PagePath = (typeof PAGES)[number]['path'];

const CONTACT_PATH = /^\/app\/contacts\/([^/]+)$/;

/**
 * The page an address shows: /app alone is Bookings, /app/settings is the developer settings, /app/contacts/<e-mail>
 * is one contact on the Contacts page; anything else is unknown.
 */
export function pageFor(pathname: string): PagePath | null {
  const path = pathname.replace(/\/+$/, '') || '/';
  if (path === '/app') return '/app/bookings';
  if (path === '/app/settings') return '/app/settings/developer';
  if (contactEmailOf(path) !== null) return '/app/contacts';
  return PAGES.find((page) => page.path === path)?.path ?? null;
}

/** Where one contact's history is shown. */
export function contactPath(email: string): string {
  return `/app/contacts/${encodeURIComponent(email)}`;
}

/** The e-mail address a contact's path names, or null. */
export function contactEmailOf(pathname: string): string | null {
  const match = CONTACT_PATH.exec(pathname.replace(/\/+$/, ''));
  if (!match?.[1]) return null;
  try {
    return decodeURIComponent(match[1]);
  } catch {
    return null;
  }
}

/** A link within /app: a plain click navigates in place; a click that asks for a new tab or window is the browser's. */
export function appLink(path: string): { href: string; onClick: (event: MouseEvent<HTMLAnchorElement>) => void } {
  return {
    href: path,
    onClick: (event) => {
      if (event.metaKey || event.ctrlKey || event.shiftKey || event.altKey || event.button !== 0) return;
      event.preventDefault();
      navigate(path);
    },
  };
}

/** Client-side navigation within /app: pushState, and every listener re-renders. */
export function navigate(path: string): void {
  window.history.pushState(null, '', path);
  window.dispatchEvent(new PopStateEvent('popstate'));
}

/** A link's click as client-side navigation, unless a modifier asks for a new tab or window; true when it navigated. */
export function followLink(event: MouseEvent<HTMLAnchorElement>, path: string): boolean {
  if (event.metaKey || event.ctrlKey || event.shiftKey || event.button !== 0) return false;
  event.preventDefault();
  navigate(path);
  return true;
}

export function usePathname(): string {
  const [pathname, setPathname] = useState(window.location.pathname);
  useEffect(() => {
    const update = () => setPathname(window.location.pathname);
    window.addEventListener('popstate', update);
    return () => window.removeEventListener('popstate', update);
  }, []);
  return pathname;
}
