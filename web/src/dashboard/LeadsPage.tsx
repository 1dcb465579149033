import { useState } from 'react';
import { api, errorMessage } from '../api.ts';
import { SelectField } from '../components/fields.tsx';
import { ErrorNotice } from '../components/ui.tsx';
import { formatDateTime } from '../time.ts';
import { type LeadItem, titleCase } from './format.ts';
import { ListView } from './ListView.tsx';
import { useLoadedList } from './loaded.ts';
import { useSession } from './session.ts';

const STATUSES = ['new', 'contacted', 'qualified', 'lost'] as const;
type Status = (typeof STATUSES)[number];

export function LeadsPage() {
  const { user } = useSession();
  const [status, setStatus] = useState<Status | ''>('');
  const leads = useLoadedList((cursor) => api.leads.list.query({ status: status || undefined, cursor, limit: 25 }), [status]);

  return (
    <>
      <div className="page-header">
        <h1>Leads</h1>
        <p>People who left their details on a booking page without booking yet. Move them through your pipeline.</p>
      </div>
      <div className="filters">
        <SelectField label="Status" value={status} onChange={(e) => setStatus(e.target.value as Status | '')}>
          <option value="">Any</option>
          {STATUSES.map((value) => (
            <option key={value} value={value}>
              {titleCase(value)}
            </option>
          ))}
        </SelectField>
      </div>
      <ListView
        list={leads}
        what="Your leads"
        loading="Loading leads…"
        empty={
          <div className="empty-state card" data-testid="leads-empty">
            {status ? (
              <p>No leads with this status.</p>
            ) : (
              <>
                <h2>No leads yet</h2>
                <p>
                  When a visitor of your booking page enters their name and e-mail but does not book, they show up here, so
                  you can follow up. Share your booking links to get started.
                </p>
              </>
            )}
          </div>
        }
      >
        {(items) => (
          <div className="table-wrap card">
            <table className="cards-on-phone" data-testid="leads">
              <caption className="visually-hidden">Leads</caption>
              <thead>
                <tr>
                  <th scope="col">Person</th>
                  <th scope="col">Event type</th>
                  <th scope="col">Captured</th>
                  <th scope="col">Booked</th>
                  <th scope="col">Status</th>
                </tr>
              </thead>
              <tbody>
                {items.map((lead) => (
                  <LeadRow key={lead.id} lead={lead} timeZone={user.timezone} onChanged={leads.put} />
                ))}
              </tbody>
            </table>
          </div>
        )}
      </ListView>
      {leads.more && leads.items && (
        <div className="btn-row">
          <button type="button" className="btn" onClick={leads.more}>
            Show more
          </button>
        </div>
      )}
    </>
  );
}

function LeadRow({ lead, timeZone, onChanged }: { lead: LeadItem; timeZone: string; onChanged: (lead: LeadItem) => void }) {
  const { onSessionLost } = useSession();
  const [error, setError] = useState<string | null>(null);
  const change = async (status: Status) => {
    setError(null);
    try {
      onChanged(await api.leads.update.mutate({ id: lead.id, status }));
    } catch (failure) {
      onSessionLost(failure);
      setError(errorMessage(failure));
    }
  };
  const who = lead.name ?? lead.email;
  return (
    <tr data-testid="lead">
      <td data-label="Person">
        <strong>{lead.name ?? '—'}</strong>
        <div className="muted break">{lead.email}</div>
      </td>
      <td data-label="Event type">{lead.eventType.name}</td>
      <td data-label="Captured">{formatDateTime(lead.createdAt, timeZone)}</td>
      <td data-label="Booked">{lead.booked ? <span className="badge badge-accent">Booked</span> : <span className="muted">Not yet</span>}</td>
      <td data-label="Status">
        <select className="select" aria-label={`Status of ${who}`} value={lead.status} onChange={(e) => void change(e.target.value as Status)}>
          {STATUSES.map((value) => (
            <option key={value} value={value}>
              {titleCase(value)}
            </option>
          ))}
        </select>
        {error && <ErrorNotice>{error}</ErrorNotice>}
      </td>
    </tr>
  );
}
