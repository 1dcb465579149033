/**
 * Prompts for the common tasks (MCP `prompts/list`, `prompts/get`): each is a user message that names the tools to
 * call in order, so a model does them the way the API expects (a slot from get_availability, never a guessed time).
 */
import type { GetPromptResult, Prompt } from '@modelcontextprotocol/sdk/types.js';

interface McpPrompt {
  definition: Prompt;
  render(args: Record<string, string | undefined>): string;
}

const PROMPTS: McpPrompt[] = [
  {
    definition: {
      name: 'find_time_and_book',
      title: 'Find a free time and book it',
      description: 'Finds a free slot on one of your event types and books it for an invitee.',
      arguments: [
        { name: 'invitee_name', description: 'Who the booking is for.', required: true },
        { name: 'invitee_email', description: "The invitee's e-mail address.", required: true },
        { name: 'when', description: 'When it should happen, in words (e.g. "next Tuesday afternoon").', required: false },
        { name: 'event_type', description: 'Which event type (its name); the first active one otherwise.', required: false },
      ],
    },
    render: (args) =>
      [
        `Book a meeting for ${args.invitee_name} <${args.invitee_email}>${args.when ? `, ${args.when}` : ''}.`,
        `1. Call list_event_types and pick the active event type${args.event_type ? ` named like "${args.event_type}"` : ''}.`,
        '2. Call get_availability for it with a window (`from`, `to`, RFC 3339, at most 31 days) that covers the wish; ' +
          "pass `tz` as the invitee's time zone to read the slots in it. When the time they asked for is not among " +
          'the slots, call explain_availability with that `start` and tell them why it is not offered.',
        '3. Call create_booking with the event type id, a returned slot `start`, `durationMin` and the invitee ' +
          "(name, email, IANA timezone). If it answers 409 (the slot was just taken), pick another slot and try again.",
        '4. Confirm the booked start time in the invitee’s time zone.',
      ].join('\n'),
  },
  {
    definition: {
      name: 'review_upcoming_bookings',
      title: 'Review upcoming bookings',
      description: 'Lists your active (not canceled) bookings in a period and summarises them.',
      arguments: [{ name: 'days', description: 'How many days ahead to look (default 7).', required: false }],
    },
    render: (args) =>
      [
        `Summarise my active (not canceled) bookings for the next ${args.days ?? '7'} days.`,
        'Call list_bookings with `status: "active"`, `from` = now and `to` = now plus that many days (RFC 3339); ' +
          'follow `nextCursor` until it is null. Group them by day in my time zone (get_me tells it).',
      ].join('\n'),
  },
];

export const promptDefinitions = (): Prompt[] => PROMPTS.map((prompt) => prompt.definition);

/** The prompt's message, or why it cannot be given (unknown name, missing argument) for a JSON-RPC error. */
export function renderPrompt(name: string, args: Record<string, string | undefined> = {}): GetPromptResult | string {
  const prompt = PROMPTS.find((candidate) => candidate.definition.name === name);
  if (!prompt) return `Unknown prompt: ${name}. prompts/list names them all.`;
  const missing = (prompt.definition.arguments ?? []).filter((argument) => argument.required && !args[argument.name]);
  if (missing.length > 0) return `Missing argument(s): ${missing.map((argument) => argument.name).join(', ')}.`;
  return {
    description: prompt.definition.description,
    messages: [{ role: 'user', content: { type: 'text', text: prompt.render(args) } }],
  };
}
