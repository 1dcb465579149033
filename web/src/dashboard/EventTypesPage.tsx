import { useState } from 'react';
import { api, errorMessage } from '../api.ts';
import { CopyField, ErrorNotice } from '../components/ui.tsx';
import { embedSnippet } from '../embed.ts';
import { placesSummary } from '../locations.ts';
import { EventTypeForm } from './EventTypeForm.tsx';
import type { EventTypeItem } from './format.ts';
import { titleCase } from './format.ts';
import { ListView } from './ListView.tsx';
import { useLoadedList } from './loaded.ts';
import { useSession } from './session.ts';

export function EventTypesPage() {
  const eventTypes = useLoadedList(async () => (await api.eventTypes.list.query()).data, []);
  const [creating, setCreating] = useState(false);
  /** A secret event type's private link is shown once, by the response that made it. */
  const [freshLinks, setFreshLinks] = useState<Record<string, string>>({});

  const saved = (eventType: EventTypeItem) => {
    if (eventType.secret && eventType.url.includes('?key=')) setFreshLinks((links) => ({ ...links, [eventType.id]: eventType.url }));
    eventTypes.put(eventType);
  };

  return (
    <>
      <div className="page-header page-header-row">
        <div>
          <h1>Event types</h1>
          <p>Each event type is a kind of meeting with its own booking page.</p>
        </div>
        {!creating && (
          <button type="button" className="btn btn-primary" onClick={() => setCreating(true)}>
            New event type
          </button>
        )}
      </div>
      {creating && (
        <section className="card" aria-label="New event type">
          <div className="card-body">
            <h2>New event type</h2>
            <EventTypeForm
              onSaved={(eventType) => {
                saved(eventType);
                setCreating(false);
              }}
              onCancel={() => setCreating(false)}
            />
          </div>
        </section>
      )}
      <ListView
        list={eventTypes}
        what="Your event types"
        loading="Loading event types…"
        empty={
          !creating && (
            <div className="empty-state card" data-testid="event-types-empty">
              <h2>Create your first event type</h2>
              <p>An event type is a meeting people can book, like a 30-minute intro call. You get a link to share as soon as you create one.</p>
              <button type="button" className="btn btn-primary" onClick={() => setCreating(true)}>
                Create an event type
              </button>
            </div>
          )
        }
      >
        {(items) => (
          <ul className="booking-list" data-testid="event-types">
            {items.map((eventType) => (
              <EventTypeRow key={eventType.id} eventType={eventType} freshLink={freshLinks[eventType.id]} onSaved={saved} />
            ))}
          </ul>
        )}
      </ListView>
    </>
  );
}

function EventTypeRow({ eventType, freshLink, onSaved }: { eventType: EventTypeItem; freshLink?: string; onSaved: (e: EventTypeItem) => void }) {
  const { onSessionLost } = useSession();
  const [editing, setEditing] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const link = freshLink ?? eventType.url;

  const setActive = async (active: boolean) => {
    setError(null);
    try {
      onSaved(active ? await api.eventTypes.update.mutate({ id: eventType.id, active }) : await api.eventTypes.deactivate.mutate({ id: eventType.id }));
    } catch (failure) {
      onSessionLost(failure);
      setError(errorMessage(failure));
    }
  };

  const newPrivateLink = async () => {
    setError(null);
    try {
      onSaved(await api.eventTypes.regeneratePrivateLink.mutate({ id: eventType.id }));
    } catch (failure) {
      onSessionLost(failure);
      setError(errorMessage(failure));
    }
  };

  return (
    <li className="card" data-testid="event-type" aria-label={eventType.name}>
      <div className="card-body">
        <div className="item-head">
          <div className="with-color">
            <span className="color-dot" style={{ background: eventType.color }} aria-hidden="true" />
            <div>
              <h2 className="item-title">{eventType.name}</h2>
              <p className="muted">
                {eventType.durationsMin.map((minutes) => `${minutes} min`).join(' / ')} · {titleCase(eventType.kind)}
                {eventType.bufferBeforeMin || eventType.bufferAfterMin ? ` · buffers ${eventType.bufferBeforeMin}/${eventType.bufferAfterMin} min` : ''}
              </p>
            </div>
          </div>
          <div className="chips">
            {eventType.secret && <span className="badge badge-warning">Secret</span>}
            <span className={`badge ${eventType.active ? 'badge-accent' : 'badge-neutral'}`}>{eventType.active ? 'Active' : 'Inactive'}</span>
          </div>
        </div>
        {eventType.locations.length > 0 && (
          <p className="muted" data-testid="event-type-places">
            Where: {placesSummary(eventType.locations)}
          </p>
        )}
        {eventType.secret && !freshLink && (
          <p className="muted">
            Secret: bookable only through its private link, which is shown once, when it is made. Lost it? Make a new one
            (the old link stops working).
          </p>
        )}
        <CopyField label={`Booking link for ${eventType.name}`} value={link} />
        <CopyField label={`Embed snippet for ${eventType.name}`} value={embedSnippet(link, window.location.origin)} />
        {error && <ErrorNotice>{error}</ErrorNotice>}
        <div className="btn-row">
          <button type="button" className="btn btn-small" aria-expanded={editing} onClick={() => setEditing(!editing)}>
            Edit<span className="visually-hidden"> {eventType.name}</span>
          </button>
          <a className="btn btn-small" href={link} target="_blank" rel="noreferrer">
            Open booking page
          </a>
          {eventType.secret && (
            <button type="button" className="btn btn-small" onClick={() => void newPrivateLink()}>
              New private link<span className="visually-hidden"> for {eventType.name}</span>
            </button>
          )}
          {eventType.active ? (
            <button type="button" className="btn btn-small btn-danger" onClick={() => void setActive(false)}>
              Deactivate<span className="visually-hidden"> {eventType.name}</span>
            </button>
          ) : (
            <button type="button" className="btn btn-small" onClick={() => void setActive(true)}>
              Activate<span className="visually-hidden"> {eventType.name}</span>
            </button>
          )}
        </div>
        {editing && (
          <EventTypeForm
            existing={eventType}
            onSaved={(changed) => {
              onSaved(changed);
              setEditing(false);
            }}
            onCancel={() => setEditing(false)}
          />
        )}
      </div>
    </li>
  );
}
