/**
 * The example values the OpenAPI document shows (and the API reference pre-fills): realistic and consistent with
 * each other, so that a booking's example event type is the event type's example. Ids are in the real format
 * (random UUIDs, src/lib/ids.ts); instants are in the near future of the time of writing.
 */
export const EXAMPLE = {
  userId: '6f1c8a52-3d4b-4e0a-9b7c-2a5d8e1f4c36',
  eventTypeId: '0b7d2e94-5c1a-4f3e-8d6b-9a2c4e7f1b05',
  bookingId: '3e9a5c17-8b2d-4f60-a1c4-7d5e9b3a2f81',
  leadId: 'c2f4a6d8-1e3b-4c5d-9f7a-8b6e4d2c0a19',
  webhookId: '9d3b7f15-2a4c-4e6d-8b1f-5c7a9e3d1b42',
  deliveryId: '4a8c2e6f-7b1d-4d3e-9c5a-1f3b5d7e9a24',
  webhookEventId: 'evt_5b2e8f4a1c7d4e9a8b3f6c2d1e0a9b87',
  calendarConnectionId: '7c5e1a3f-9d2b-4e8c-a6f1-3b9d5e7c2a40',
  connectedCalendarId: 'e1b3d5f7-2a4c-4b6e-8d0f-6a8c0e2b4d62',
  messageId: '5d7f9b1e-3c5a-4e7b-9d1f-2b4d6f8a0c53',
  slotHoldId: '8e2a4c6f-1b3d-4f5a-9c7e-6d8f0a2b4c71',
  holdExpiresAt: '2026-11-30T14:10:00Z',
  email: 'ines@example.com',
  hostEmail: 'olivia@example.com',
  name: 'Inês Carvalho',
  timezone: 'Europe/Berlin',
  start: '2026-12-01T09:00:00Z',
  end: '2026-12-01T09:30:00Z',
  createdAt: '2026-11-24T10:15:00Z',
  canceledAt: '2026-11-26T16:45:00Z',
  from: '2026-12-01T00:00:00Z',
  to: '2026-12-08T00:00:00Z',
  cursor: 'AXsiayI6WyIyMDI2LTEyLTAxVDA5OjAwOjAwLjAwMDAwMFoiLCIzZTlhNWMxNyJdfV9xM1JrOXdacDFjMm1WYjd4',
} as const;
