import { useEffect, useState } from 'react';
import { api } from '../api.ts';
import { TextField } from '../components/fields.tsx';
import { formatDate } from '../time.ts';
import { ContactHistoryView } from './ContactHistoryView.tsx';
import { titleCase } from './format.ts';
import { ListView } from './ListView.tsx';
import { useLoaded } from './loaded.ts';
import { appLink, contactEmailOf, contactPath, usePathname } from './router.ts';
import { useSession } from './session.ts';

const PAGE_SIZE = 25;

interface ListState {
  query: string;
  search: string;
  offset: number;
}

/** The contacts, or one contact's history (/app/contacts/<e-mail>); the list keeps its search and page meanwhile. */
export function ContactsPage() {
  const email = contactEmailOf(usePathname());
  const [list, setList] = useState<ListState>({ query: '', search: '', offset: 0 });
  return email ? <ContactHistoryView email={email} /> : <ContactList state={list} onChange={setList} />;
}

function ContactList({ state, onChange }: { state: ListState; onChange: (change: (state: ListState) => ListState) => void }) {
  const { user } = useSession();
  const { query, search, offset } = state;
  const setQuery = (next: string) => onChange((previous) => ({ ...previous, query: next }));
  const setOffset = (next: number) => onChange((previous) => ({ ...previous, offset: next }));
  const contacts = useLoaded(() => api.contacts.list.query({ q: search || undefined, offset, limit: PAGE_SIZE }), [search, offset]);
  const result = contacts.value;

  // Search as the host types, once they pause.
  useEffect(() => {
    const timer = setTimeout(() => {
      onChange((previous) => (previous.search === query.trim() ? previous : { ...previous, search: query.trim(), offset: 0 }));
    }, 250);
    return () => clearTimeout(timer);
  }, [query, onChange]);

  return (
    <>
      <div className="page-header">
        <h1>Contacts</h1>
        <p>Everyone who booked you or left their details, merged by e-mail address.</p>
      </div>
      <div className="filters">
        <TextField grow label="Search by name or e-mail" type="search" value={query} onChange={(e) => setQuery(e.target.value)} maxLength={200} />
      </div>
      <ListView
        list={{ items: result?.data ?? null, error: contacts.error, reload: contacts.reload }}
        what="Your contacts"
        loading="Loading contacts…"
        empty={
          <div className="empty-state card" data-testid="contacts-empty">
            {search ? (
              <p>No contacts match “{search}”.</p>
            ) : (
              <>
                <h2>No contacts yet</h2>
                <p>Contacts appear as soon as someone books you or leaves their details on one of your booking pages.</p>
              </>
            )}
          </div>
        }
      >
        {(items) => (
          <>
            <div className="table-wrap card">
              <table className="cards-on-phone" data-testid="contacts">
                <caption className="visually-hidden">Contacts</caption>
                <thead>
                  <tr>
                    <th scope="col">Person</th>
                    <th scope="col">Status</th>
                    <th scope="col">Meetings</th>
                    <th scope="col">No-shows</th>
                    <th scope="col">Last activity</th>
                  </tr>
                </thead>
                <tbody>
                  {items.map((contact) => (
                    <tr key={contact.email} data-testid="contact">
                      <td data-label="Person">
                        <a className="contact-link break" {...appLink(contactPath(contact.email))}>
                          <strong>{contact.name ?? contact.email}</strong>
                        </a>
                        {contact.name && <div className="muted break">{contact.email}</div>}
                      </td>
                      <td data-label="Status">
                        <span className={`badge ${contact.kind === 'client' ? 'badge-accent' : 'badge-neutral'}`}>{titleCase(contact.status)}</span>
                      </td>
                      <td data-label="Meetings">{contact.meetings}</td>
                      <td data-label="No-shows">{contact.noShows}</td>
                      <td data-label="Last activity">{contact.lastActivityAt ? formatDate(contact.lastActivityAt, user.timezone) : '—'}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
            <nav className="pager" aria-label="Contact pages">
              <span className="muted" data-testid="contacts-range">
                {offset + 1}–{offset + items.length} of {result?.total}
              </span>
              <button type="button" className="btn btn-small" disabled={offset === 0} onClick={() => setOffset(Math.max(0, offset - PAGE_SIZE))}>
                Previous
              </button>
              <button
                type="button"
                className="btn btn-small"
                disabled={result?.nextOffset == null}
                onClick={() => result?.nextOffset != null && setOffset(result.nextOffset)}
              >
                Next
              </button>
            </nav>
          </>
        )}
      </ListView>
    </>
  );
}
