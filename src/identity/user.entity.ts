import { defineEntity, p } from '@mikro-orm/core';

export const PLANS = ['free', 'pro', 'team'] as const;
export type Plan = (typeof PLANS)[number];

export const UserEntity = defineEntity({
  name: 'User',
  tableName: 'app_user',
  properties: {
    id: p.string().primary(),
    email: p.string(),
    name: p.string().nullable(),
    slug: p.string(),
    timezone: p.string(),
    plan: p.enum(PLANS),
    passwordHash: p.string().nullable().hidden(),
    createdAt: p.datetime().onCreate(() => new Date()),
    updatedAt: p.datetime().onCreate(() => new Date()).onUpdate(() => new Date()),
  },
});
