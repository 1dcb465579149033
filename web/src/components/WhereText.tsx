import { type BookedLocation, whereWords } from '../locations.ts';

/** Where a booked meeting happens, to its reader; the link or number opens it. `other`: the other person's name. */
export function WhereText(props: { location: BookedLocation; reader: 'host' | 'invitee'; other: string }) {
  const words = whereWords(props.location, props.reader, props.other);
  return (
    <span data-testid="booking-where">
      <span className="where-label">{words.label}: </span>
      {words.href ? (
        <a href={words.href} className="break" {...(words.href.startsWith('https:') ? { target: '_blank', rel: 'noopener noreferrer' } : {})}>
          {words.text}
        </a>
      ) : (
        <span className="keep-lines break">{words.text}</span>
      )}
    </span>
  );
}
