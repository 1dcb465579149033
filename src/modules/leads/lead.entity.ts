import { defineEntity, p } from '@mikro-orm/core';

export const LEAD_STATUSES = ['new', 'contacted', 'qualified', 'lost'] as const;
export type LeadStatus = (typeof LEAD_STATUSES)[number];

export const LeadEntity = defineEntity({
  name: 'Lead',
  tableName: 'lead',
  properties: {
    id: p.string().primary(),
    ownerId: p.string(),
    eventTypeId: p.string(),
    name: p.string().nullable(),
    email: p.string(),
    timezone: p.string(),
    status: p.enum(LEAD_STATUSES).default('new'),
    bookingId: p.string().nullable(),
    createdAt: p.datetime().onCreate(() => new Date()),
    updatedAt: p.datetime().onCreate(() => new Date()).onUpdate(() => new Date()),
    completedAt: p.datetime().nullable(),
  },
});
