import { defineEntity, p } from '@mikro-orm/core';

export const PLANS = ['free', 'pro', 'team'] as const;
export type Plan = (typeof PLANS)[number];

export const UserEntity = defineEntity({
  name: 'User',
  tableName: 'app_user',
  properties: {
    id: p.text().primary(),
    email: p.text(),
    name: p.text().nullable(),
    slug: p.text(),
    timezone: p.text(),
    plan: p.enum(PLANS),
    passwordHash: p.text().nullable().hidden(),
    createdAt: p.datetime().defaultRaw('now()').onCreate(() => new Date()),
    updatedAt: p.datetime().defaultRaw('now()').onCreate(() => new Date()).onUpdate(() => new Date()),
  },
});
