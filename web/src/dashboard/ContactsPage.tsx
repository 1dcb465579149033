import { useCallback, useEffect, useState } from 'react';
import { api, errorMessage } from '../api.ts';
import { TextField } from '../components/fields.tsx';
import { LoadFailed, Spinner } from '../components/ui.tsx';
import { type ContactItem, formatDay, titleCase } from './format.ts';
import { useSession } from './session.ts';

const PAGE_SIZE = 25;

export function ContactsPage() {
  const { user, onSessionLost } = useSession();
  const [query, setQuery] = useState('');
  const [search, setSearch] = useState('');
  const [offset, setOffset] = useState(0);
  const [result, setResult] = useState<{ data: ContactItem[]; total: number; nextOffset: number | null } | null>(null);
  const [loadError, setLoadError] = useState<string | null>(null);

  const load = useCallback(async () => {
    setLoadError(null);
    setResult(null);
    try {
      setResult(await api.contacts.list.query({ q: search || undefined, offset, limit: PAGE_SIZE }));
    } catch (error) {
      onSessionLost(error);
      setLoadError(errorMessage(error));
    }
  }, [search, offset, onSessionLost]);
  useEffect(() => void load(), [load]);

  // Search as the host types, once they pause.
  useEffect(() => {
    const timer = setTimeout(() => {
      setSearch(query.trim());
      setOffset(0);
    }, 250);
    return () => clearTimeout(timer);
  }, [query]);

  return (
    <>
      <div className="page-header">
        <h1>Contacts</h1>
        <p>Everyone who booked you or left their details, merged by e-mail address.</p>
      </div>
      <div className="filters">
        <TextField grow label="Search by name or e-mail" type="search" value={query} onChange={(e) => setQuery(e.target.value)} maxLength={200} />
      </div>
      {loadError && <LoadFailed what="Your contacts" reason={loadError} onRetry={() => void load()} />}
      {!result && !loadError && <Spinner label="Loading contacts…" />}
      {result && result.data.length === 0 && (
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
      )}
      {result && result.data.length > 0 && (
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
                {result.data.map((contact) => (
                  <tr key={contact.email} data-testid="contact">
                    <td data-label="Person">
                      <strong>{contact.name ?? '—'}</strong>
                      <div className="muted break">{contact.email}</div>
                    </td>
                    <td data-label="Status">
                      <span className={`badge ${contact.kind === 'client' ? 'badge-accent' : 'badge-neutral'}`}>{titleCase(contact.status)}</span>
                    </td>
                    <td data-label="Meetings">{contact.meetings}</td>
                    <td data-label="No-shows">{contact.noShows}</td>
                    <td data-label="Last activity">{contact.lastActivityAt ? formatDay(contact.lastActivityAt, user.timezone) : '—'}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
          <nav className="pager" aria-label="Contact pages">
            <span className="muted" data-testid="contacts-range">
              {offset + 1}–{offset + result.data.length} of {result.total}
            </span>
            <button type="button" className="btn btn-small" disabled={offset === 0} onClick={() => setOffset(Math.max(0, offset - PAGE_SIZE))}>
              Previous
            </button>
            <button type="button" className="btn btn-small" disabled={result.nextOffset === null} onClick={() => result.nextOffset !== null && setOffset(result.nextOffset)}>
              Next
            </button>
          </nav>
        </>
      )}
    </>
  );
}
